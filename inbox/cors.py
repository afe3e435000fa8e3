"""CORS for the feed API (docs/security/recipients.md, "The recipient token"): a page on one of
NOTIFLOW_INBOX_ALLOWED_ORIGINS may call /api/inbox/ from the browser with its Authorization
header; any other origin gets no CORS headers, so the browser keeps the answer from it. The
preflight (OPTIONS) is answered here, before authentication, which it never carries. Nothing
else of the site is opened to other origins. No cookies are involved (the token is a header).
"""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse

PREFIX = "/api/inbox/"
ALLOWED_METHODS = "GET, POST, OPTIONS"
ALLOWED_HEADERS = "Authorization, Content-Type, Last-Event-ID"
PREFLIGHT_MAX_AGE = "600"


class InboxCorsMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if not request.path.startswith(PREFIX):
            return self.get_response(request)
        origin = request.headers.get("Origin", "")
        allowed = origin in settings.NOTIFLOW_INBOX_ALLOWED_ORIGINS
        preflight = (
            request.method == "OPTIONS" and "Access-Control-Request-Method" in request.headers
        )
        response = HttpResponse(status=204) if preflight else self.get_response(request)
        if allowed:
            response["Access-Control-Allow-Origin"] = origin
            if preflight:
                response["Access-Control-Allow-Methods"] = ALLOWED_METHODS
                response["Access-Control-Allow-Headers"] = ALLOWED_HEADERS
                response["Access-Control-Max-Age"] = PREFLIGHT_MAX_AGE
        response["Vary"] = ", ".join(filter(None, [response.get("Vary"), "Origin"]))
        return response

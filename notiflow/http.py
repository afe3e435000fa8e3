"""Input PostgreSQL cannot store is refused at the door with a 400, never a 500 later.

PostgreSQL text and jsonb values cannot contain NUL (U+0000). DRF's CharFields refuse it; these
cover what they do not see: JSON bodies (payloads and definitions go into jsonb as they are) and
query-string filters.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.http import HttpRequest, HttpResponse, JsonResponse
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

NUL = "\x00"


def _contains_nul(value: Any) -> bool:
    if isinstance(value, str):
        return NUL in value
    if isinstance(value, dict):
        return any(_contains_nul(k) or _contains_nul(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_contains_nul(item) for item in value)
    return False


class NulSafeJSONParser(JSONParser):
    def parse(self, stream, media_type=None, parser_context=None):
        data = super().parse(stream, media_type, parser_context)
        if _contains_nul(data):
            raise ParseError("JSON strings may not contain \\u0000 (NUL): it cannot be stored")
        return data


class RefuseNulInQueryMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.path.startswith("/api/") and any(
            NUL in key or NUL in value for key, value in request.GET.items()
        ):
            return JsonResponse(
                {"detail": "query parameters may not contain NUL (%00)"}, status=400
            )
        return self.get_response(request)

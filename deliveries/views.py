"""One-click unsubscribe (RFC 8058; docs/design/deliveries.md, "Suppression and unsubscribe").

A marketing email's `List-Unsubscribe` URL carries a signed, expiring token naming its recipient
(deliveries/suppression.py). A POST to it, which mail clients send with the body
`List-Unsubscribe=One-Click` and no cookie, suppresses that recipient for marketing mail and
records it against the message as a provider's unsubscribe is (deliveries.services): no
login, no CSRF token (the signed URL is the proof), the same answer however often it comes. A
GET, which link scanners and previews also send, changes nothing: it shows a button that POSTs.
"""

from __future__ import annotations

import logging

from django.core import signing
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods

from deliveries.services import unsubscribe_record
from deliveries.suppression import unsubscribe_token_read

logger = logging.getLogger(__name__)


def _page(
    request: HttpRequest, status: int, title: str, message: str, **extra: object
) -> HttpResponse:
    context = {"title": title, "message": message, **extra}
    response = render(request, "deliveries/unsubscribe.html", context, status=status)
    response["Cache-Control"] = "no-store"
    return response


@csrf_exempt
@require_http_methods(["GET", "POST"])
def unsubscribe(request: HttpRequest, token: str) -> HttpResponse:
    try:
        unsubscribing = unsubscribe_token_read(token)
    except signing.SignatureExpired:
        return _page(request, 400, "This link has expired", "Use the link in a newer message.")
    except signing.BadSignature:
        return _page(request, 400, "This link is not valid", "Nothing was changed.")
    if request.method == "GET":
        return _page(
            request,
            200,
            "Unsubscribe",
            "Stop receiving marketing email at this address? Messages about your account and "
            "orders still arrive.",
            confirm=True,
            recipient=unsubscribing.recipient,
        )
    if unsubscribe_record(unsubscribing=unsubscribing):
        logger.info(
            "%s unsubscribed from marketing %s", unsubscribing.recipient, unsubscribing.channel
        )
    return _page(
        request,
        200,
        "You are unsubscribed",
        f"{unsubscribing.recipient} will receive no more marketing email.",
    )

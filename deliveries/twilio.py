"""Twilio's StatusCallback for SMS (docs/design.md, "Deliveries"; docs/security.md).

Twilio signs each callback (X-Twilio-Signature: HMAC-SHA1 of the URL it called and the POST
parameters, keyed by the account's auth token); `twilio.request_validator.RequestValidator`
checks it. A request without a valid signature is a 403 and changes nothing. The URL is rebuilt
from NOTIFLOW_PUBLIC_URL when it is set (behind a proxy the request's own host and scheme are not
the ones Twilio called), else from the request.
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST
from twilio.request_validator import RequestValidator

from deliveries.services import Report, delivery_record
from workers.providers import channel_providers

logger = logging.getLogger(__name__)

# Twilio's MessageStatus in Notiflow's (anymail's) words.
STATUSES = {
    "accepted": "queued",
    "scheduled": "queued",
    "queued": "queued",
    "sending": "queued",
    "sent": "sent",
    "delivered": "delivered",
    "undelivered": "failed",
    "failed": "failed",
    "canceled": "failed",
    "read": "opened",
}
# Twilio's error for a recipient who replied STOP: an unsubscribe, not a failure to retry.
UNSUBSCRIBED_ERROR = "21610"


def _auth_tokens() -> list[str]:
    tokens = [str(p.options.get("auth_token") or "") for p in channel_providers("sms")]
    return [t for t in {*tokens, settings.TWILIO_AUTH_TOKEN} if t]


def _called_url(request: HttpRequest) -> str:
    if settings.NOTIFLOW_PUBLIC_URL:
        return settings.NOTIFLOW_PUBLIC_URL + request.get_full_path()
    return request.build_absolute_uri()


@csrf_exempt
@require_POST
def twilio_status(request: HttpRequest) -> HttpResponse:
    params = request.POST.dict()
    signature = request.headers.get("X-Twilio-Signature", "")
    url = _called_url(request)
    if not signature or not any(
        RequestValidator(token).validate(url, params, signature) for token in _auth_tokens()
    ):
        logger.warning("twilio status callback with a bad or missing signature; refused")
        return HttpResponse("bad signature", status=403, content_type="text/plain")
    status = params.get("MessageStatus") or params.get("SmsStatus") or ""
    error = params.get("ErrorCode") or ""
    event = "unsubscribed" if error == UNSUBSCRIBED_ERROR else STATUSES.get(status, "unknown")
    sid = params.get("MessageSid") or params.get("SmsSid") or ""
    delivery_record(
        Report(
            provider="twilio",
            channel="sms",
            event=event,
            recipient=params.get("To", ""),
            provider_message_id=sid,
            event_id=f"{sid}:{status}:{error}",
            description=" ".join(filter(None, [status, f"error {error}" if error else ""])),
            raw=params,
        )
    )
    return HttpResponse(status=200)

"""Twilio's StatusCallback for SMS (docs/design/deliveries.md, "Deliveries"; docs/security/providers.md).

Twilio signs each callback (X-Twilio-Signature: HMAC-SHA1 of the URL it called and the POST
parameters, keyed by the account's auth token); `twilio.request_validator.RequestValidator`
checks it against the token of each configured Twilio provider. Without a Twilio provider the
endpoint is a 404; a request without a valid signature is a 403 and changes nothing. The report
is then one that only the providers whose token signed it may have made: it changes a send
that one of them accepted, for the number it went to (deliveries/services.py). The URL is rebuilt
from NOTIFLOW_PUBLIC_URL when it is set (behind a proxy the request's own host and scheme are not
the ones Twilio called), else from the request.
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST
from twilio.request_validator import RequestValidator

from deliveries.services import Report, delivery_record
from workers.providers import ProviderConfigError, channel_providers

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


def _auth_tokens() -> dict[str, str]:
    """The auth token of each configured Twilio provider, by name (TWILIO_AUTH_TOKEN unless its
    options give its own, as the backend does: workers/providers/sms.py)."""
    try:
        providers = channel_providers("sms")
    except ProviderConfigError:
        return {}
    tokens = {
        p.name: str(p.options.get("auth_token") or settings.TWILIO_AUTH_TOKEN or "")
        for p in providers
        if p.backend == "twilio"
    }
    return {name: token for name, token in tokens.items() if token}


def _called_url(request: HttpRequest) -> str:
    if settings.NOTIFLOW_PUBLIC_URL:
        return settings.NOTIFLOW_PUBLIC_URL + request.get_full_path()
    return request.build_absolute_uri()


@csrf_exempt
@require_POST
def twilio_status(request: HttpRequest) -> HttpResponse:
    tokens = _auth_tokens()
    if not tokens:
        raise Http404("no Twilio provider is configured")
    params = request.POST.dict()
    signature = request.headers.get("X-Twilio-Signature", "")
    url = _called_url(request)
    signers = frozenset(
        name
        for name, token in tokens.items()
        if signature and RequestValidator(token).validate(url, params, signature)
    )
    if not signers:
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
            reporters=signers,
        )
    )
    return HttpResponse(status=200)

"""anymail's tracking webhooks, as Notiflow mounts them (docs/security/providers.md, "Provider reports").

`/deliveries/anymail/<esp>/tracking/` serves anymail's own tracking view of that ESP (the paths
of anymail.urls; no inbound view), and only:

- when ANYMAIL_WEBHOOK_SECRET is set: every view then checks anymail's basic auth;
- for an ESP that a configured email provider sends through (NOTIFLOW_EMAIL_PROVIDERS, or the
  one EMAIL_BACKEND), so an ESP the deployment does not use has no endpoint to forge reports on;
- for an ESP whose webhooks anymail can verify a signature of (SIGNING below), when that
  signature's key is set too: anymail then checks it on every report.

Amazon SES's reports also have their SNS signature checked (deliveries/sns.py), which anymail
does not, unless NOTIFLOW_SNS_VERIFY_SIGNATURES is off.

Anything else is a 404. A report that fails these checks, or that anymail cannot parse, is a 400
logged in one line (anymail would raise: a 500 and a traceback for a stranger's request); an
SNS certificate that cannot be fetched is a 503, and an error while recording a report that
passed them stays a 500: the ESP retries both.
"""

from __future__ import annotations

import logging
from functools import cache
from typing import Any

from anymail import urls as anymail_urls
from anymail.exceptions import AnymailError
from anymail.webhooks.amazon_ses import AmazonSESBaseWebhookView
from anymail.webhooks.base import AnymailCoreWebhookView
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.http import Http404, HttpRequest, HttpResponse
from django.utils.module_loading import import_string
from django.views.decorators.csrf import csrf_exempt
from requests import RequestException

from deliveries.sns import sns_verify
from workers.providers import ProviderConfigError, channel_providers

logger = logging.getLogger(__name__)

# The anymail settings (ANYMAIL_<ESP>_<NAME>) of the ESPs whose webhooks anymail verifies a
# signature of (django-anymail 15): required here, so every such report is verified. The others
# have anymail's basic auth only (docs/security/providers.md lists them and what else to do).
SIGNING = {
    "Mailgun": "WEBHOOK_SIGNING_KEY",
    "MailerSend": "SIGNING_SECRET",
    "Mailtrap": "TRACKING_SECRET",
    "Mandrill": "WEBHOOK_KEY",
    "Postal": "WEBHOOK_KEY",
    "Resend": "SIGNING_SECRET",
    "SendGrid": "TRACKING_WEBHOOK_VERIFICATION_KEY",
    "Unisender Go": "API_KEY",
}


class _Refused(Exception):
    """A report anymail refused or could not read: a 400, not a 500."""


# What anymail's checks and parsers raise about a request (its configuration errors too: an
# inbound message posted to a tracking URL is one).
REFUSALS = (AnymailError, ImproperlyConfigured, ValueError, TypeError, LookupError, AttributeError)


@cache
def tracking_views() -> dict[str, type[AnymailCoreWebhookView]]:
    """anymail's tracking view of each ESP, by the path segment anymail.urls gives it."""
    views = {}
    for pattern in anymail_urls.urlpatterns:
        route = str(getattr(pattern, "pattern", ""))
        slug, _, rest = route.partition("/")
        view_class = getattr(getattr(pattern, "callback", None), "view_class", None)
        if rest == "tracking/" and view_class is not None:
            views[slug] = view_class
    return views


def backend_esp(backend: str) -> str:
    """The ESP (anymail's esp_name) an email backend sends through; "" for any other backend."""
    if "." not in backend:
        return ""
    try:
        return str(getattr(import_string(backend), "esp_name", "") or "")
    except ImportError:
        return ""


def esp_providers(esp_name: str) -> frozenset[str]:
    """The configured email providers (by name) that send through `esp_name`."""
    try:
        providers = channel_providers("email")
    except ProviderConfigError:
        return frozenset()
    return frozenset(p.name for p in providers if backend_esp(p.backend) == esp_name)


def signing_setting(esp_name: str) -> str:
    """The ANYMAIL setting of `esp_name`'s webhook signature key; "" when it has none."""
    name = SIGNING.get(esp_name)
    return f"{esp_name.upper().replace(' ', '_')}_{name}" if name else ""


def _guarded(view_class: type[AnymailCoreWebhookView]) -> type[AnymailCoreWebhookView]:
    """anymail's view, whose checks and parsing answer 400 on failure instead of raising."""

    class Guarded(view_class):  # type: ignore[valid-type,misc]
        def run_validators(self, request: HttpRequest) -> None:
            try:
                super().run_validators(request)
                if isinstance(self, AmazonSESBaseWebhookView) and (
                    settings.NOTIFLOW_SNS_VERIFY_SIGNATURES
                ):
                    sns_verify(self._parse_sns_message(request))
            except REFUSALS as exc:
                raise _Refused(exc) from exc

        def parse_events(self, request: HttpRequest) -> Any:
            try:
                return super().parse_events(request)
            except REFUSALS as exc:
                raise _Refused(exc) from exc

    Guarded.__name__ = Guarded.__qualname__ = view_class.__name__
    return Guarded


@cache
def _view(slug: str) -> Any:
    return _guarded(tracking_views()[slug]).as_view()


@csrf_exempt
def anymail_tracking(request: HttpRequest, esp: str) -> HttpResponse:
    view_class = tracking_views().get(esp)
    if view_class is None or not settings.ANYMAIL.get("WEBHOOK_SECRET"):
        raise Http404("no such tracking webhook")
    esp_name = str(view_class.esp_name)
    if not esp_providers(esp_name):
        raise Http404("no configured provider sends through this ESP")
    key = signing_setting(esp_name)
    if key and not settings.ANYMAIL.get(key):
        logger.warning(
            "%s tracking webhook refused: set ANYMAIL_%s to verify its reports", esp, key
        )
        raise Http404("this ESP's webhook signature key is not set")
    try:
        response: HttpResponse = _view(esp)(request)
    except (AnymailError, ImproperlyConfigured) as exc:  # the view could not start (settings)
        logger.warning("%s tracking webhook is not served: %s", esp, exc)
        raise Http404("this ESP's tracking webhook is not configured") from None
    except RequestException as exc:  # the SNS signing certificate did not come
        logger.warning("%s tracking webhook could not check a signature: %s", esp, exc)
        return HttpResponse("try again later", status=503, content_type="text/plain")
    except _Refused as exc:
        cause = exc.__cause__ or exc
        logger.warning(
            "%s tracking webhook refused a report: %s: %s", esp, type(cause).__name__, cause
        )
        return HttpResponse("report refused", status=400, content_type="text/plain")
    return response

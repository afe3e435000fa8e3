"""Email through Django's email framework and the named provider's backend (an SMTP server, an
anymail ESP), with a deterministic Message-ID whichever provider sends (docs/design/rules.md, rule 6)."""

from __future__ import annotations

import smtplib
from collections.abc import Mapping
from email.errors import MessageError
from email.utils import formataddr, getaddresses
from typing import Any

from anymail.exceptions import (
    AnymailAPIError,
    AnymailError,
    AnymailInvalidAddress,
    AnymailRecipientsRefused,
    AnymailUnsupportedFeature,
)
from django.conf import settings
from django.core.mail import BadHeaderError, EmailMultiAlternatives

from recipients.selectors import RunRecipient
from workers.channels.base import Channel
from workers.errors import PermanentError, TransientError
from workers.providers import Provider, ProviderConfigError
from workers.providers.connections import provider_connection
from workflows.nodes.base import Rendered
from workflows.nodes.email import header_value_problem

# Sent to anymail ESPs as metadata, which their tracking events echo (deliveries/).
METADATA_KEY = "notiflow_key"


def message_id_for(idempotency_key: str) -> str:
    trigger_id, _, node_id = idempotency_key.partition(":")
    return f"<{trigger_id}.{node_id}@{settings.NOTIFLOW_MESSAGE_ID_DOMAIN}>"


def _classify_smtp(exc: Exception) -> Exception:
    if isinstance(exc, smtplib.SMTPRecipientsRefused):
        codes = [code for code, _ in exc.recipients.values()]
        detail = "; ".join(
            f"{addr}: {code} {msg!r}" for addr, (code, msg) in exc.recipients.items()
        )
        if codes and all(400 <= code < 500 for code in codes):
            return TransientError(f"SMTP recipient deferred: {detail}")
        return PermanentError(f"SMTP recipient refused: {detail}")
    if isinstance(exc, smtplib.SMTPResponseException):
        message = (
            exc.smtp_error.decode(errors="replace")
            if isinstance(exc.smtp_error, bytes)
            else str(exc.smtp_error)
        )
        text = f"SMTP {exc.smtp_code}: {message}"
        if 500 <= exc.smtp_code < 600:
            return PermanentError(text)
        return TransientError(text)
    return TransientError(f"email transport: {type(exc).__name__}: {exc}")


def _classify_anymail(exc: AnymailError) -> Exception:
    """An ESP's refusal: invalid or refused recipients, an unsupported feature and HTTP 4xx are
    permanent; HTTP 429 and 5xx, and no answer at all, transient."""
    text = f"{type(exc).__name__}: {exc}"[:500]
    if isinstance(
        exc, AnymailInvalidAddress | AnymailRecipientsRefused | AnymailUnsupportedFeature
    ):
        return PermanentError(text)
    status = getattr(exc, "status_code", None)
    if isinstance(exc, AnymailAPIError) and status is not None and 400 <= status < 500:
        return TransientError(text) if status in (408, 429) else PermanentError(text)
    return TransientError(text)


# Email providers by short name: Django's own backends and anymail's ESPs.
EMAIL_ALIASES = {
    "smtp": "workers.providers.smtp.EmailBackend",
    "console": "django.core.mail.backends.console.EmailBackend",
    "locmem": "django.core.mail.backends.locmem.EmailBackend",
    "file": "django.core.mail.backends.filebased.EmailBackend",
    "ses": "anymail.backends.amazon_ses.EmailBackend",
    "amazon_ses": "anymail.backends.amazon_ses.EmailBackend",
    "sendgrid": "anymail.backends.sendgrid.EmailBackend",
    "postmark": "anymail.backends.postmark.EmailBackend",
    "mailgun": "anymail.backends.mailgun.EmailBackend",
    "resend": "anymail.backends.resend.EmailBackend",
    "brevo": "anymail.backends.brevo.EmailBackend",
    "mailjet": "anymail.backends.mailjet.EmailBackend",
    "sparkpost": "anymail.backends.sparkpost.EmailBackend",
    "mailersend": "anymail.backends.mailersend.EmailBackend",
    "postal": "anymail.backends.postal.EmailBackend",
}
_DJANGO_EMAIL_BACKENDS = "django.core.mail.backends."
# Django's SMTP backend named anywhere (EMAIL_URL, EMAIL_BACKEND, a provider's _BACKEND) sends
# through its pipelining subclass (workers/providers/smtp.py), the `smtp` alias's backend.
_DJANGO_SMTP = f"{_DJANGO_EMAIL_BACKENDS}smtp.EmailBackend"


class EmailChannel(Channel):
    """Email's sender; its providers' backends are Django email backends (NamedBackends)."""

    @staticmethod
    def backend_of(name: str, backend: str) -> str:
        backend = EMAIL_ALIASES.get(backend, backend)
        if backend == _DJANGO_SMTP:
            return EMAIL_ALIASES["smtp"]
        if "." not in backend:
            known = ", ".join(sorted(EMAIL_ALIASES))
            raise ProviderConfigError(
                f"email provider {name!r}: unknown backend {backend!r} (an alias: {known}; or "
                f"a dotted backend in NOTIFLOW_PROVIDER_{name.upper()}_BACKEND)"
            )
        return backend

    @staticmethod
    def fallback_of(value: str) -> tuple[str, str]:
        """EMAIL_BACKEND's backend, named by its short name (`smtp`) when it is Django's."""
        if value == _DJANGO_SMTP:
            return "smtp", EMAIL_ALIASES["smtp"]
        if value.startswith(_DJANGO_EMAIL_BACKENDS):
            return value.removeprefix(_DJANGO_EMAIL_BACKENDS).split(".")[0], value
        return value, value

    def send(
        self,
        rendered: Rendered,
        *,
        idempotency_key: str,
        provider: Provider,
        headers: Mapping[str, str] | None = None,
        recipient: RunRecipient | None = None,
    ) -> dict[str, Any]:
        message_id = message_id_for(idempotency_key)
        _refuse_unsafe_headers(rendered, headers)
        # `to` is checked and normalised by the run semantics (workflows.semantics).
        recipients = [formataddr(pair) for pair in getaddresses([rendered["to"]])]
        message = EmailMultiAlternatives(
            subject=rendered.get("subject", ""),
            body=rendered.get("body", ""),
            to=recipients,
            headers={
                **(headers or {}),
                "Message-ID": message_id,
                "X-Notiflow-Idempotency-Key": idempotency_key,
            },
        )
        if rendered.get("html"):
            message.attach_alternative(rendered["html"], "text/html")
        if provider.is_anymail:
            # Tracking events echo it; ESPs that de-duplicate by a key of their own get it
            # through anymail's esp_extra where they have one (none of anymail's do today).
            message.metadata = {METADATA_KEY: idempotency_key}  # type: ignore[attr-defined]
        try:
            # This worker thread's open connection to the provider (kept between messages).
            with provider_connection(provider) as connection:
                message.connection = connection
                message.send()
        except (BadHeaderError, ValueError, MessageError) as exc:
            # Refused by Django or Python's email package (HeaderParseError) before any
            # connection (the semantics' checks should have caught it first): the same message
            # would be refused again.
            raise PermanentError(f"email not sendable: {exc}") from exc
        except AnymailError as exc:
            raise _classify_anymail(exc) from exc
        except (smtplib.SMTPException, OSError) as exc:
            raise _classify_smtp(exc) from exc
        return {
            "message_id": message_id,
            "to": rendered["to"],
            "provider": provider.name,
            "provider_message_id": _provider_message_id(message, message_id),
        }


def _refuse_unsafe_headers(rendered: Rendered, headers: Mapping[str, str] | None) -> None:
    """PermanentError when a value bound for a header could end its line (header injection):
    the subject, the recipients, the sender, any extra header. The run semantics refuse the
    rendered ones first; this covers every header, whatever built it."""
    values = {
        "subject": rendered.get("subject", ""),
        "to": rendered.get("to", ""),
        "from": str(settings.DEFAULT_FROM_EMAIL),
        **{f"header {name!r}": f"{name}{value}" for name, value in (headers or {}).items()},
    }
    for name, value in values.items():
        if problem := header_value_problem(str(value)):
            raise PermanentError(f"email not sendable: {name} has {problem}")


def _provider_message_id(message: EmailMultiAlternatives, message_id: str) -> str:
    """The id the provider knows the message by: an ESP's own (anymail_status), else the
    Message-ID without its angle brackets."""
    status = getattr(message, "anymail_status", None)
    esp_id = getattr(status, "message_id", None) if status is not None else None
    if isinstance(esp_id, set):  # one id per recipient, when the ESP gave them different ones
        esp_id = ",".join(sorted(map(str, esp_id)))
    return str(esp_id)[:255] if esp_id else message_id.strip("<>")

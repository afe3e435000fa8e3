"""Named providers per channel (docs/design.md, "Providers"): which backend sends a channel's
messages, in which order a retry fails over to the next, and each provider's rate limit.

Read from the settings on each call (a cached parse keyed by the values, so tests that change
the settings see the change):

- `NOTIFLOW_EMAIL_PROVIDERS=ses,smtp`, `NOTIFLOW_SMS_PROVIDERS=twilio,console`: the order. A name
  is an alias (EMAIL_ALIASES, SMS_BACKENDS) or any name whose backend
  `NOTIFLOW_PROVIDER_<NAME>_BACKEND` gives (an alias or a dotted Django email backend).
  `NOTIFLOW_PROVIDER_<NAME>_OPTIONS` (a JSON object) are its options: the keyword arguments of
  the email backend (`host`, `port`, `username`, `use_tls`; an anymail ESP's own), or, for
  Twilio, `account_sid`, `auth_token`, `from_number`, `base_url`.
- Unset, a channel has the one provider of the settings that came before names: email the
  `EMAIL_BACKEND` (or `EMAIL_URL`) itself, named by its short name (`smtp`), SMS the
  `NOTIFLOW_SMS_BACKEND`; `none` or empty, no provider.
- `NOTIFLOW_PROVIDER_RATE_LIMITS=ses=14/s,twilio=100/m` (workers/services/provider_rates.py).
- The chat channels (CHAT_CHANNELS) have one provider each, named after the channel (`slack`,
  `teams`; a rate limit by that name applies): their address (a webhook URL, a Slack channel)
  comes with each message, and every worker has them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import timedelta
from functools import lru_cache
from typing import Any

from django.conf import settings

from common.throttling import parse_rate
from workers.errors import RateLimited
from workflows.definition import PROVIDER_NAME

# Email providers by short name: Django's own backends and anymail's ESPs.
EMAIL_ALIASES = {
    "smtp": "django.core.mail.backends.smtp.EmailBackend",
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
SMS_BACKENDS = ("twilio", "console", "file", "null")
# The push channels' one provider each, by channel (workers/providers/push.py).
PUSH_PROVIDERS = {"webpush": "webpush", "push": "fcm"}
# Channels whose one provider is the service itself (workers/providers/slack.py, teams.py).
CHAT_CHANNELS = ("slack", "teams")
NO_PROVIDER = {"", "none"}
_DJANGO_EMAIL_BACKENDS = "django.core.mail.backends."


class ProviderConfigError(ValueError):
    """The provider settings cannot work; the message names the setting."""


@dataclass(frozen=True)
class Provider:
    """One named provider of one channel."""

    name: str
    channel: str
    backend: str  # a dotted email backend; for SMS one of SMS_BACKENDS
    options: dict[str, Any] = field(default_factory=dict, hash=False, compare=False)
    rate: tuple[int, int] | None = None  # (count, period seconds), or unlimited

    @property
    def is_anymail(self) -> bool:
        return self.backend.startswith("anymail.")


def _short_email_name(backend: str) -> str:
    if backend.startswith(_DJANGO_EMAIL_BACKENDS):  # django.core.mail.backends.smtp.EmailBackend
        return backend.removeprefix(_DJANGO_EMAIL_BACKENDS).split(".")[0]
    return backend


def _rates(text: str) -> dict[str, tuple[int, int] | None]:
    rates: dict[str, tuple[int, int] | None] = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        name, sep, rate = item.partition("=")
        try:
            if not sep:
                raise ValueError("expected name=N/period")
            rates[name.strip().lower()] = parse_rate(rate)
        except ValueError as exc:
            raise ProviderConfigError(f"NOTIFLOW_PROVIDER_RATE_LIMITS: {item!r}: {exc}") from None
    return rates


def _named(
    channel: str, name: str, configured: dict[str, dict[str, Any]], rates: dict[str, Any]
) -> Provider:
    if not PROVIDER_NAME.match(name):
        raise ProviderConfigError(
            f"provider name {name!r}: lower-case letters, digits and _, starting with a letter"
        )
    own = configured.get(name, {})
    backend = str(own.get("backend") or name)
    options = own.get("options") or {}
    if not isinstance(options, dict):
        raise ProviderConfigError(f"NOTIFLOW_PROVIDER_{name.upper()}_OPTIONS: not a JSON object")
    if channel == "email":
        backend = EMAIL_ALIASES.get(backend, backend)
        if "." not in backend:
            known = ", ".join(sorted(EMAIL_ALIASES))
            raise ProviderConfigError(
                f"email provider {name!r}: unknown backend {backend!r} (an alias: {known}; or "
                f"a dotted backend in NOTIFLOW_PROVIDER_{name.upper()}_BACKEND)"
            )
    elif backend not in SMS_BACKENDS:
        raise ProviderConfigError(
            f"SMS provider {name!r}: unknown backend {backend!r} ({', '.join(SMS_BACKENDS)})"
        )
    return Provider(name, channel, backend, options, rates.get(name))


@lru_cache(maxsize=16)
def _parse(
    channel: str, names: tuple[str, ...], configured_json: str, rates_text: str, fallback: str
) -> tuple[Provider, ...]:
    configured = json.loads(configured_json)
    rates = _rates(rates_text)
    if not names:  # the one provider of the older settings
        if fallback.strip().lower() in NO_PROVIDER:
            return ()
        if channel == "email":
            name = _short_email_name(fallback)
            return (Provider(name, "email", fallback, {}, rates.get(name)),)
        name = fallback.strip().lower()
        return (_named("sms", name, {}, rates),)
    if len(set(names)) != len(names):
        raise ProviderConfigError(f"NOTIFLOW_{channel.upper()}_PROVIDERS names one twice")
    return tuple(_named(channel, name, configured, rates) for name in names)


def _push_providers(channel: str) -> tuple[Provider, ...]:
    """The push channels have one provider each, present when its credentials are set:
    `webpush` (NOTIFLOW_VAPID_PRIVATE_KEY) and `fcm` (the FCM service account)."""
    if channel == "webpush":
        configured = bool(settings.NOTIFLOW_VAPID_PRIVATE_KEY)
    else:
        configured = bool(
            settings.NOTIFLOW_FCM_SERVICE_ACCOUNT_JSON or settings.NOTIFLOW_FCM_SERVICE_ACCOUNT_FILE
        )
    if not configured:
        return ()
    name = PUSH_PROVIDERS[channel]
    rate = _rates(settings.NOTIFLOW_PROVIDER_RATE_LIMITS).get(name)
    return (Provider(name, channel, name, {}, rate),)


@lru_cache(maxsize=16)
def _chat_provider(channel: str, rates_text: str) -> tuple[Provider, ...]:
    return (Provider(channel, channel, channel, {}, _rates(rates_text).get(channel)),)


def channel_providers(channel: str) -> tuple[Provider, ...]:
    """The providers of `channel` in failover order; empty when this worker has none.
    Raises ProviderConfigError on settings that cannot work (settings.py refuses them at load)."""
    if channel in PUSH_PROVIDERS:
        return _push_providers(channel)
    if channel in CHAT_CHANNELS:
        return _chat_provider(channel, settings.NOTIFLOW_PROVIDER_RATE_LIMITS)
    names = (
        settings.NOTIFLOW_EMAIL_PROVIDERS if channel == "email" else settings.NOTIFLOW_SMS_PROVIDERS
    )
    fallback = (
        str(getattr(settings, "EMAIL_BACKEND", "") or "")
        if channel == "email"
        else str(settings.NOTIFLOW_SMS_BACKEND or "")
    )
    return _parse(
        channel,
        tuple(name.strip().lower() for name in names if name.strip()),
        json.dumps(settings.NOTIFLOW_PROVIDER_SETTINGS, sort_keys=True),
        settings.NOTIFLOW_PROVIDER_RATE_LIMITS,
        fallback,
    )


def provider_for_attempt(channel: str, *, named: str, attempts: int) -> Provider:
    """The provider of a send attempt: the node's named provider (else the channel's first),
    moved on by one for every failed attempt before this one (round robin over the list), so a
    provider's outage costs one backoff. Raises LookupError when the node names a provider this
    worker does not have."""
    providers = channel_providers(channel)
    names = [provider.name for provider in providers]
    if named and named not in names:
        listed = ", ".join(names) or "none"
        raise LookupError(f"provider {named!r} is not one of this worker's ({listed})")
    start = names.index(named) if named else 0
    return providers[(start + attempts) % len(providers)]


def provider_wait(provider: str, retry_after: str | None) -> RateLimited | None:
    """The RateLimited a provider's 429 raises when it says how long to wait (Retry-After in
    seconds), or None (the 429 is then an ordinary transient error)."""
    seconds = retry_after_seconds(retry_after)
    return None if seconds is None else RateLimited(provider, timedelta(seconds=seconds))


def retry_after_seconds(value: str | None) -> float | None:
    """A Retry-After header's seconds (at least 1, at most NOTIFLOW_RETRY_MAX_SECONDS), or None
    when absent or not a number of seconds (the 429 is then an ordinary transient error)."""
    try:
        seconds = float(value) if value is not None else None
    except ValueError:
        return None
    if seconds is None:
        return None
    return min(max(seconds, 1.0), float(settings.NOTIFLOW_RETRY_MAX_SECONDS))

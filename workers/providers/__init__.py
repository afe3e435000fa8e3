"""Named providers per channel (docs/design/channels.md, "Providers"): which backend sends a channel's
messages, in which order a retry fails over to the next, and each provider's rate limit. What a
channel's providers are is its spec's (workflows.channels: `providers`); this reads it.

Read from the settings on each call (a cached parse keyed by the values, so tests that change
the settings see the change):

- NamedProviders (`NOTIFLOW_EMAIL_PROVIDERS=ses,smtp`, `NOTIFLOW_SMS_PROVIDERS=twilio,console`):
  the order. A name is one its channel's sender knows as a backend (`backend_of`: email's
  aliases, SMS's backends) or any name whose backend `NOTIFLOW_PROVIDER_<NAME>_BACKEND` gives.
  `NOTIFLOW_PROVIDER_<NAME>_OPTIONS` (a JSON object) are its options: the keyword arguments of
  the email backend (`host`, `port`, `username`, `use_tls`; an anymail ESP's own), or, for
  Twilio, `account_sid`, `auth_token`, `from_number`, `base_url`. Unset, a channel has the one
  provider of its older setting (`fallback`: email the `EMAIL_BACKEND` itself, named by its
  short name, `smtp`; SMS the `NOTIFLOW_SMS_BACKEND`); `none` or empty, no provider.
- OneProvider: one provider of that name, present when one of its settings is set (push:
  the VAPID key, the FCM service account) or always (chat: their address, a webhook URL or a
  Slack channel, comes with each message).
- `NOTIFLOW_PROVIDER_RATE_LIMITS=ses=14/s,twilio=100/m` (workers/services/provider_rates.py).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import timedelta
from functools import lru_cache
from typing import Any, Protocol

from django.conf import settings
from django.utils.module_loading import import_string

from common.throttling import parse_rate
from workers.errors import RateLimited
from workflows.channels import NamedProviders, OneProvider, channel_spec
from workflows.definition import PROVIDER_NAME

NO_PROVIDER = {"", "none"}


class ProviderConfigError(ValueError):
    """The provider settings cannot work; the message names the setting."""


@dataclass(frozen=True)
class Provider:
    """One named provider of one channel."""

    name: str
    channel: str
    backend: str  # what its channel's sender knows it by (NamedBackends.backend_of)
    options: dict[str, Any] = field(default_factory=dict, hash=False, compare=False)
    rate: tuple[int, int] | None = None  # (count, period seconds), or unlimited

    @property
    def is_anymail(self) -> bool:
        return self.backend.startswith("anymail.")


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
    provider_name_check(name)
    own = configured.get(name, {})
    backend = str(own.get("backend") or name)
    options = own.get("options") or {}
    if not isinstance(options, dict):
        raise ProviderConfigError(f"NOTIFLOW_PROVIDER_{name.upper()}_OPTIONS: not a JSON object")
    backend = _sender(channel).backend_of(name, backend)
    return Provider(name, channel, backend, options, rates.get(name))


def provider_name_check(name: str) -> None:
    """ProviderConfigError when `name` cannot name a provider."""
    if not PROVIDER_NAME.match(name):
        raise ProviderConfigError(
            f"provider name {name!r}: lower-case letters, digits and _, starting with a letter"
        )


def _sender(channel: str) -> NamedBackends:
    """The sender class of a channel with named providers (workers/channels/<name>.py)."""
    return import_string(channel_spec(channel).sender)  # type: ignore[no-any-return]


class NamedBackends(Protocol):
    """What the sender of a channel with named providers knows of their backends."""

    def backend_of(self, name: str, backend: str) -> str:
        """The backend provider `name` uses, given `backend` (its setting, else its name);
        ProviderConfigError when the channel has no such backend."""
        ...

    def fallback_of(self, value: str) -> tuple[str, str]:
        """(name, backend) of the one provider the older setting's `value` gives."""
        ...


@lru_cache(maxsize=16)
def _parse(
    channel: str,
    setting: str,
    names: tuple[str, ...],
    configured_json: str,
    rates_text: str,
    fallback: str,
) -> tuple[Provider, ...]:
    configured = json.loads(configured_json)
    rates = _rates(rates_text)
    if not names:  # the one provider of the older setting
        if fallback.strip().lower() in NO_PROVIDER:
            return ()
        name, backend = _sender(channel).fallback_of(fallback)
        return (Provider(name, channel, backend, {}, rates.get(name)),)
    if len(set(names)) != len(names):
        raise ProviderConfigError(f"{setting} names one twice")
    return tuple(_named(channel, name, configured, rates) for name in names)


@lru_cache(maxsize=16)
def _one(channel: str, name: str, rates_text: str) -> tuple[Provider, ...]:
    return (Provider(name, channel, name, {}, _rates(rates_text).get(name)),)


def channel_providers(channel: str) -> tuple[Provider, ...]:
    """The providers of `channel` in failover order (its spec's `providers`); empty when this
    worker has none. Raises ProviderConfigError on settings that cannot work (WorkersConfig
    refuses them at start)."""
    source = channel_spec(channel).providers
    rates = settings.NOTIFLOW_PROVIDER_RATE_LIMITS
    if isinstance(source, OneProvider):
        if source.configured_by and not any(
            getattr(settings, name, None) for name in source.configured_by
        ):
            return ()
        return _one(channel, source.name, rates)
    if isinstance(source, NamedProviders):
        names = getattr(settings, source.setting)
        return _parse(
            channel,
            source.setting,
            tuple(name.strip().lower() for name in names if name.strip()),
            json.dumps(settings.NOTIFLOW_PROVIDER_SETTINGS, sort_keys=True),
            rates,
            str(getattr(settings, source.fallback, "") or ""),
        )
    return ()


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

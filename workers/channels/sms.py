"""SMS through the named provider's backend (workers/providers/sms.py)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from recipients.selectors import RunRecipient
from workers.channels.base import Channel
from workers.providers import Provider, ProviderConfigError, provider_name_check
from workers.providers.sms import SMS_BACKENDS, sms_backend
from workflows.nodes.base import Rendered


class SmsChannel(Channel):
    """SMS's sender; its providers' backends are SMS_BACKENDS (NamedBackends)."""

    @staticmethod
    def backend_of(name: str, backend: str) -> str:
        if backend not in SMS_BACKENDS:
            raise ProviderConfigError(
                f"SMS provider {name!r}: unknown backend {backend!r} ({', '.join(SMS_BACKENDS)})"
            )
        return backend

    @staticmethod
    def fallback_of(value: str) -> tuple[str, str]:
        """NOTIFLOW_SMS_BACKEND names a backend, and the provider after it."""
        name = value.strip().lower()
        provider_name_check(name)
        return name, SmsChannel.backend_of(name, name)

    def send(
        self,
        rendered: Rendered,
        *,
        idempotency_key: str,
        provider: Provider,
        headers: Mapping[str, str] | None = None,
        recipient: RunRecipient | None = None,
    ) -> dict[str, Any]:
        message_id = sms_backend(provider).send(
            to=rendered["to"], body=rendered["body"], idempotency_key=idempotency_key
        )
        return {
            "message_id": message_id,
            "to": rendered["to"],
            "provider": provider.name,
            "provider_message_id": message_id or "",
        }

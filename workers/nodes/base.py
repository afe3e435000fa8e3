"""What a sending node type provides: a send through one named provider. Rendering and its checks
are the run semantics (workflows.semantics), shared with the preview."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from workers.providers import Provider
from workflows.semantics import Rendered


class Channel(Protocol):
    name: str

    def send(
        self,
        rendered: Rendered,
        *,
        idempotency_key: str,
        provider: Provider,
        headers: Mapping[str, str] | None = None,
    ) -> dict[str, Any]:
        """Deliver once through `provider`; returns {"message_id", "to", "sent_at", "provider",
        "provider_message_id"}. Raises TransientError or PermanentError.

        `rendered` is workflows.semantics.node_render's result. `idempotency_key` is
        `<trigger_id>:<node_id>` and must travel to the provider, whichever it is. `headers` are
        extra email headers (SMS has none).
        """
        ...

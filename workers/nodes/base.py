"""What a sending node type provides: a send through its provider. Rendering and its checks are
the run semantics (workflows.semantics), shared with the preview."""

from __future__ import annotations

from typing import Any, Protocol

from workflows.semantics import Rendered


class Channel(Protocol):
    name: str

    def send(self, rendered: Rendered, *, idempotency_key: str) -> dict[str, Any]:
        """Deliver once; returns {"message_id", "to", "sent_at"}. Raises Transient/PermanentError.

        `rendered` is workflows.semantics.node_render's result. `idempotency_key` is
        `<trigger_id>:<node_id>` and must travel to the provider.
        """
        ...

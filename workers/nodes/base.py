"""What a sending node type provides: a send through one named provider; and what running any
node produces (NodeRun). Rendering and its checks are the run semantics (workflows.semantics),
shared with the preview."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
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


# Where a run goes after a node (NodeRun.follow).
FOLLOW_EDGES = "edges"  # the first outgoing edge whose `when` holds
FOLLOW_CONDITIONAL = "conditional"  # the same among the edges with a `when` (throttled)
FOLLOW_AGAIN = "again"  # this node once more, at `resume_at` (a digest's opener)
FOLLOW_END = "end"  # nowhere: the run is completed (a run that joined a digest)


@dataclass
class NodeRun:
    """What running a node produced: its output (the step log's), the vars patch, when the run
    goes on (`resume_at`; None: at once) and where (`follow`); whether it sent, or skipped a
    send (a suppression that is not a failure: the output says why)."""

    output: dict[str, Any]
    vars_patch: dict[str, Any] = field(default_factory=dict)
    resume_at: datetime | None = None
    sent: bool = False
    skipped: bool = False
    follow: str = FOLLOW_EDGES

"""What a step decided, as its step log records it (docs/design/rules.md, rule 20;
docs/design/deliveries.md, "Explaining a run"): the decision, one sentence a support agent can paste, the rule that decided and the
evidence it decided on. Written when the step runs, inside the step log's `output` under
DECISION_KEY; explaining a run reads it back and never decides again.

The words are declared here, once: the node types (workflows.nodes) and the send path
(workers.services.send) make decisions with them, the engine records them, and the run's story
(triggers.explain) and a person's dry run (deliveries.explain) read them. Pure: no database.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

# The decisions a step (or, for the last three, a run) can come to.
SENT = "sent"  # a message went out (or, in-app, was stored)
SKIPPED = "skipped"  # a send a rule stopped: the run went on
FAILED = "failed"  # the run failed at this node
RETRYING = "retrying"  # this attempt failed and the node is tried again later
WAITING = "waiting"  # a wait_event node waits for its event
DEFERRED = "deferred"  # held for a time: a delay, an `until`, a closed window, an open digest
THROTTLED = "throttled"  # over a throttle's limit: only the conditional edges were followed
DIGESTED = "digested"  # gathered into a digest (joined one, or the opener's digest closed)
PASSED = "passed"  # a node that sends nothing let the run go on at once
RATE_LIMITED = "rate_limited"  # put back until its provider's rate limit has a token
CANCELLED = "cancelled"  # the run was cancelled while at this node
PENDING = "pending"  # the node is next and has not run yet (or is running)
DECISIONS = (
    SENT,
    SKIPPED,
    FAILED,
    RETRYING,
    WAITING,
    DEFERRED,
    THROTTLED,
    DIGESTED,
    PASSED,
    RATE_LIMITED,
    CANCELLED,
    PENDING,
)

# Where a step log's output keeps the decision.
DECISION_KEY = "decision"


@dataclass(frozen=True)
class StepDecision:
    """One decision: what (`decision`, one of DECISIONS), why in words (`reason`), which rule
    (`rule`: `preference`, `opt-out`, `window`, `send_cap`...) and on what evidence (`evidence`:
    JSON, the facts the rule read: the preference's path and value, the suppression entry, the
    throttle's key and count, the provider's answer, the window's next opening)."""

    decision: str
    reason: str
    rule: str = ""
    evidence: dict[str, Any] = field(default_factory=dict)

    def as_json(self) -> dict[str, Any]:
        return {
            "decision": self.decision,
            "reason": self.reason,
            "rule": self.rule,
            "evidence": self.evidence,
        }


def moment(at: datetime | str) -> str:
    """A time as a reason writes it: to the minute, with its offset ("2026-03-30 09:00 +02:00")."""
    when = datetime.fromisoformat(at) if isinstance(at, str) else at
    return when.strftime("%Y-%m-%d %H:%M %z").replace("+0000", "UTC").strip()

"""Every event Notiflow announces, in one place (docs/design.md, rule 10).

A name here is what an endpoint subscribes to (`"trigger.completed"`, or `"*"` for all); on the
wire it is the CloudEvents `type`, prefixed: `notiflow.trigger.completed`. A new event (delivery
statuses, say) is one more entry, and the code that writes it in the transaction of its change.
"""

from __future__ import annotations

TYPE_PREFIX = "notiflow."
ALL = "*"

TRIGGER_COMPLETED = "trigger.completed"
TRIGGER_FAILED = "trigger.failed"
TRIGGER_CANCELLED = "trigger.cancelled"
TRIGGER_DELETED = "trigger.deleted"
STEP_FAILED = "step.failed"
MESSAGE_SENT = "message.sent"
# Sent by POST /api/webhooks/<id>/test/ to that endpoint alone; nobody subscribes to it.
PING = "ping"

EVENT_TYPES: dict[str, str] = {
    TRIGGER_COMPLETED: "a trigger ran its last node",
    TRIGGER_FAILED: "a trigger failed for good (a permanent error, or its retries ran out)",
    TRIGGER_CANCELLED: "a trigger was cancelled",
    TRIGGER_DELETED: "a trigger was soft-deleted",
    STEP_FAILED: "a step failed and will be retried (data.step has the attempt and the error)",
    MESSAGE_SENT: "an email or SMS was accepted by its provider (data.message)",
}

# What an endpoint's `events` may list.
SUBSCRIBABLE = frozenset(EVENT_TYPES) | {ALL}


def cloud_type(name: str) -> str:
    """The CloudEvents `type` of event `name`."""
    return TYPE_PREFIX + name

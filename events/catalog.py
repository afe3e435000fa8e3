"""Every event Notiflow announces, in one place (docs/design/rules.md, rule 10).

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
# A send the suppression list or a preference stopped without failing the run (the engine).
MESSAGE_SKIPPED = "message.skipped"
# What providers report after accepting a message (deliveries/services.py).
MESSAGE_DELIVERED = "message.delivered"
MESSAGE_DEFERRED = "message.deferred"
MESSAGE_BOUNCED = "message.bounced"
MESSAGE_FAILED = "message.failed"
MESSAGE_COMPLAINED = "message.complained"
MESSAGE_UNSUBSCRIBED = "message.unsubscribed"
MESSAGE_OPENED = "message.opened"
MESSAGE_CLICKED = "message.clicked"
# What a recipient does with an in-app message (inbox/services.py).
MESSAGE_SEEN = "message.seen"
MESSAGE_READ = "message.read"
MESSAGE_ARCHIVED = "message.archived"
# Sent by POST /api/webhooks/<id>/test/ to that endpoint alone; nobody subscribes to it.
PING = "ping"

EVENT_TYPES: dict[str, str] = {
    TRIGGER_COMPLETED: "a trigger ran its last node",
    TRIGGER_FAILED: "a trigger failed for good (a permanent error, or its retries ran out)",
    TRIGGER_CANCELLED: "a trigger was cancelled",
    TRIGGER_DELETED: "a trigger was soft-deleted",
    STEP_FAILED: "a step failed and will be retried (data.step has the attempt and the error)",
    MESSAGE_SENT: (
        "a message was accepted by its provider, or an in-app message stored in its "
        "recipient's inbox (data.message)"
    ),
    MESSAGE_SKIPPED: (
        "a send was skipped, its recipient suppressed (unsubscribed, say), the send turned "
        "off by their preferences, or the recipient erased; the run goes on (data.message says "
        "which rule and entry, or which preference)"
    ),
    MESSAGE_DELIVERED: "the provider reports the message delivered to the recipient",
    MESSAGE_DEFERRED: "the provider reports a temporary delivery failure; it keeps trying",
    MESSAGE_BOUNCED: "the message bounced for good; the recipient is now suppressed",
    MESSAGE_FAILED: (
        "the provider rejected or could not deliver the message; or push addresses it says are "
        "gone, now removed from the recipient"
    ),
    MESSAGE_COMPLAINED: "the recipient marked the message as spam; now suppressed",
    MESSAGE_UNSUBSCRIBED: (
        "the recipient unsubscribed (through the provider, or the one-click link); now suppressed"
    ),
    MESSAGE_OPENED: "the recipient opened the message (where the provider tracks opens)",
    MESSAGE_CLICKED: "the recipient clicked a link (where the provider tracks clicks)",
    MESSAGE_SEEN: "the recipient saw an in-app message in their feed (data.message)",
    MESSAGE_READ: "the recipient read an in-app message (data.message)",
    MESSAGE_ARCHIVED: "the recipient archived an in-app message (data.message)",
}

# What an endpoint's `events` may list.
SUBSCRIBABLE = frozenset(EVENT_TYPES) | {ALL}


def cloud_type(name: str) -> str:
    """The CloudEvents `type` of event `name`."""
    return TYPE_PREFIX + name

"""A run's own message events as events a wait_event node can wait for (docs/design/waits.md,
"Waiting for events": message waits). A delivery report stored by deliveries (an email's
open or click from the provider, an SMS delivered or read) is posted as `message.<state>` with
data {trigger_id, node_id, channel, state}; a node with `message` waits for that name with the
match {trigger_id: its run, node_id: the step}. A click implies an open, a read too.

An in-app message marked seen or read over the feed API is posted the same way (inbox_marked,
which waits/hooks.py registers in the inbox's hook: the inbox is below waits): a seen is an open,
a read is a seen and an open.

A post follows its report's commit, so a process that dies in between loses it; a redelivered
report posts again (deliveries.services.delivery_record), and a message wait never times out
while its message's state is recorded: the node's look-back and every timeout read the
recorded reports and marks themselves (notiflow_wait_recorded_v1, waits migration 0005), and
take one as the event its lost post would have been."""

from __future__ import annotations

from typing import Any

from events.catalog import EVENT_TYPES, PING
from waits.services import event_receive
from waits.sql import IMPLIED
from workflows.nodes.inapp import INAPP_CHANNEL

# Every name under it is the service's own: a run's message states, posted here alone.
MESSAGE_EVENT_PREFIX = "message."

# The inbox's marks that are a message's states.
INBOX_STATES = ("seen", "read")


RESERVED_NAME_PROBLEM = (
    "{name!r} is reserved: names starting with 'message.' and the events Notiflow announces "
    "are posted by Notiflow itself"
)


def event_name_reserved(name: str) -> bool:
    """Whether `name` is one the service itself posts (a message state) or announces
    (events/catalog.py): refused from clients and the admin's form, so that nobody but the
    service can resume a run with it (docs/security/findings.md, "Posted events")."""
    return name.startswith(MESSAGE_EVENT_PREFIX) or name in EVENT_TYPES or name == PING


def message_events_post(
    *, trigger_id: Any, node_id: str, channel: str, state: str, source: str, actor: str
) -> int:
    """Post one report about a run's message as `message.<state>` (and the states it implies),
    idempotent by `source` (a redelivered report resumes nothing twice); the runs resumed."""
    resumed = 0
    for each in IMPLIED.get(state, (state,)):
        data = {
            "trigger_id": str(trigger_id),
            "node_id": node_id,
            "channel": channel,
            "state": each,
        }
        outcome = event_receive(
            name=f"{MESSAGE_EVENT_PREFIX}{each}",
            event_id=f"{source}:{each}",
            data=data,
            actor=actor,
        )
        resumed += outcome.resumed
    return resumed


def inbox_marked(mark: str, changed: list[dict[str, Any]]) -> None:
    """The inbox's hook (inbox.hooks.MARKED_HOOKS), after a mark committed: each in-app
    message newly seen or read posted as message.seen / message.read, idempotent by the message
    (read, unread, read again resumes nothing twice)."""
    if mark not in INBOX_STATES:
        return
    for row in changed:
        message_events_post(
            trigger_id=row["trigger_id"],
            node_id=row["node_id"],
            channel=INAPP_CHANNEL,
            state=mark,
            source=f"inbox-{row['id']}",
            actor="inbox",
        )

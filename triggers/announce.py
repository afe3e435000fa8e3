"""The events that announce a change to a trigger (events.catalog), built here and written in
the change's own transaction (docs/design.md, rule 10): by triggers.state for cancel and
delete, inside the engine's release statement for the rest (workers.services.engine).

Every event's `data` has the trigger as the API shows it after the change (`trigger`), plus
`step` for a step's failure and `message` for a send.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from events.services.outbox import Announcement, events_record, outbox_params
from events.sql import (
    DELIVERIES_CTE,
    DELIVERIES_INSERT_SQL,
    DELIVERIES_RETURNS,
    OUTBOX_CTE,
    outbox_insert_sql,
)
from triggers.models import TriggerInstance
from triggers.representation import trigger_json
from triggers.state import ReleaseWrite


def announcement(
    type: str,
    trigger: TriggerInstance,
    *,
    workflow_key: str | None = None,
    version: int | None = None,
    **extra: Any,
) -> Announcement:
    """The event `type` about `trigger` as it is now; `extra` goes into `data` beside it."""
    data = {"trigger": trigger_json(trigger, workflow_key=workflow_key, version=version), **extra}
    return Announcement(
        type=type,
        trigger_id=trigger.pk,
        workflow_key=data["trigger"]["workflow"],
        data=data,
    )


def announce(announcements: Sequence[Announcement]) -> list[int]:
    """Record `announcements` in the caller's transaction (see events_record)."""
    return events_record(announcements)


def outbox_release_writes(announcements: Sequence[Announcement]) -> list[ReleaseWrite]:
    """The writes that record `announcements` within a release statement, only if it applies;
    the release's row then ends with the ids of the deliveries to nudge (or NULL)."""
    if not announcements:
        return []
    return [
        ReleaseWrite(
            outbox_insert_sql(gate="released"), outbox_params(announcements), name=OUTBOX_CTE
        ),
        ReleaseWrite(DELIVERIES_INSERT_SQL, {}, name=DELIVERIES_CTE, returns=DELIVERIES_RETURNS),
    ]

"""The events that announce a change to a trigger (events.catalog), built here and written in
the change's own transaction (docs/design.md, rule 10): by triggers.state for cancel and
delete (events_record), inside the engine's release statement for the rest (workers.services.engine).

Every event's `data` has the trigger as the API shows it after the change (`trigger`), plus
`step` for a step's failure and `message` for a send.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from events.services.outbox import Announcement, outbox_params
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

# The gate labels of events/sql.py's condition, as the release writes them.
WITH_RELEASE = ""
WITHOUT_RELEASE = "without-release"


def announcement(
    type: str,
    trigger: TriggerInstance,
    *,
    workflow_key: str | None = None,
    version: int | None = None,
    gate: str = WITH_RELEASE,
    **extra: Any,
) -> Announcement:
    """The event `type` about `trigger` as it is now; `extra` goes into `data` beside it."""
    data = {"trigger": trigger_json(trigger, workflow_key=workflow_key, version=version), **extra}
    return Announcement(
        type=type,
        trigger_id=trigger.pk,
        workflow_key=data["trigger"]["workflow"],
        data=data,
        gate=gate,
    )


def outbox_release_writes(
    announcements: Sequence[Announcement], *, unreleased_if: str | None = None
) -> list[ReleaseWrite]:
    """The writes that record `announcements` within a release statement, each only if the
    release applies; those labelled WITHOUT_RELEASE instead only if it does not, and the CTE
    `unreleased_if` has a row (a send recorded by a release that could not apply: its
    announcement must not be lost with the release). The release's row then ends with the ids
    of the deliveries to nudge (or NULL; when the release did not apply there is no row, and the
    dispatcher's sweeper nudges them)."""
    if not announcements:
        return []
    released = "EXISTS (SELECT 1 FROM released)"
    condition = released
    if unreleased_if:
        condition = (
            f"CASE WHEN e.gate = '{WITHOUT_RELEASE}' "  # noqa: S608 (constants and CTE names)
            f"THEN EXISTS (SELECT 1 FROM {unreleased_if}) AND NOT {released} ELSE {released} END"
        )
    return [
        ReleaseWrite(outbox_insert_sql(condition), outbox_params(announcements), name=OUTBOX_CTE),
        ReleaseWrite(DELIVERIES_INSERT_SQL, {}, name=DELIVERIES_CTE, returns=DELIVERIES_RETURNS),
    ]

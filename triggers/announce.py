"""The events that announce a change to a trigger (events.catalog), built here and written in
the change's own transaction (docs/design/rules.md, rule 10): by triggers.state for cancel and
delete (events_record), inside the engine's release for the rest (workers.services.engine).

Every event's `data` has the trigger as the API shows it after the change (`trigger`), plus
`step` for a step's failure and `message` for a send.
"""

from __future__ import annotations

from typing import Any

from events.services.outbox import Announcement
from triggers.models import TriggerInstance
from triggers.representation import trigger_json

# The gate labels of the release's events (`notiflow_release_v2`, triggers migration 0015): those
# of the release, written with it; and a send's, written when the release could not apply but
# recorded the send (its announcement must not be lost with the release).
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

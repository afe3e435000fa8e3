"""Recording events in the transaction of the change they announce (docs/design/rules.md, rule 10).

A caller describes each event as an Announcement. The engine's release carries them as
announcements_json() into its own call (`notiflow_release_v2`, which writes them with
`notiflow_outbox_write_v1`, events/sql.py); anywhere else a caller calls events_record() inside
its transaction. Either way the deliveries it fans out to are nudged
after commit (events.dispatch); the sweeper nudges any nudge that was lost.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

from django.db import connection

from events.catalog import EVENT_TYPES
from events.dispatch import deliveries_enqueue_on_commit
from events.sql import OUTBOX_SQL


@dataclass(frozen=True)
class Announcement:
    """One event to record: its name (events.catalog), the trigger it is about, that trigger's
    workflow key, and its `data`. `event_id` is its CloudEvents id, made here once."""

    type: str
    trigger_id: UUID | str | None
    workflow_key: str
    data: dict[str, Any]
    event_id: str = field(default_factory=lambda: str(uuid.uuid4()))
    # Which of the write's gates lets it through (events/sql.py; triggers.announce's labels).
    gate: str = ""

    def __post_init__(self) -> None:
        if self.type not in EVENT_TYPES:
            raise ValueError(f"unknown event type {self.type!r} (events.catalog)")


def announcements_json(announcements: Sequence[Announcement]) -> str:
    """`announcements` as the JSON array `notiflow_outbox_write_v1` reads, in order."""
    return json.dumps(
        [
            {
                "event_id": a.event_id,
                "type": a.type,
                "trigger_id": str(a.trigger_id) if a.trigger_id else None,
                "workflow_key": a.workflow_key,
                "data": a.data,
                "gate": a.gate,
            }
            for a in announcements
        ]
    )


def events_record(announcements: Sequence[Announcement]) -> list[int]:
    """Record `announcements` (those some endpoint subscribes to) with their deliveries, in the
    caller's transaction, and nudge the deliveries after it commits; the ids of those nudged."""
    if not announcements:
        return []
    with connection.cursor() as cursor:
        cursor.execute(OUTBOX_SQL, {"events": announcements_json(announcements)})
        (ids,) = cursor.fetchone()
    deliveries_enqueue_on_commit(ids or [])
    return list(ids or [])

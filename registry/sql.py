"""The registry's one SQL fragment: whether a live worker serves a queue.

Live means registered, not stopped, and seen within three heartbeats (`%(live_within)s`
seconds, from live_within_seconds()). The table has a row per worker, so the check is a scan
of a handful of rows: cheaper than any index, and it rides inside the statement that needs it
(triggers/sql.py, intake), costing no round trip of its own.
"""

from __future__ import annotations

from django.conf import settings

from registry.models import Worker

WORKER_TABLE = Worker._meta.db_table

LIVE_CONDITION = (
    "stopped_at IS NULL"
    " AND last_seen_at > statement_timestamp() - %(live_within)s * interval '1 second'"
)


def queue_served_sql(queue: str) -> str:
    """A boolean SQL expression: a live worker consumes from the queue named by the SQL
    expression `queue`."""
    return f"EXISTS (SELECT 1 FROM {WORKER_TABLE} WHERE {LIVE_CONDITION} AND {queue} = ANY(queues))"  # noqa: S608


def live_within_seconds() -> float:
    """How recently a live worker was seen: three heartbeats."""
    return 3 * settings.NOTIFLOW_WORKER_HEARTBEAT_SECONDS

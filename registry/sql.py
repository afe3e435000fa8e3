"""The registry's one rule in SQL: whether a live worker serves a queue.

The rule is the database function `notiflow_queue_served_v1(queue, live_within)`, whole in
registry migration 0002: live means registered, not stopped, and seen within three heartbeats
(`live_within` seconds, from live_within_seconds()). Every statement that needs it calls it in
its FROM list, where PostgreSQL inlines it (intake's statements, triggers/statements/intake*.sql;
the fan-out's chunk, triggers migration 0023), costing no round trip of its own.
"""

from __future__ import annotations

from django.conf import settings

QUEUE_SERVED_FUNCTION = "notiflow_queue_served_v1"


def live_within_seconds() -> float:
    """How recently a live worker was seen: three heartbeats."""
    return 3 * settings.NOTIFLOW_WORKER_HEARTBEAT_SECONDS

"""The state behind throttle and digest nodes (docs/design/workflows.md, "Timing and flow-control nodes").

Each decision is one short transaction that first takes a PostgreSQL advisory lock on its
(workflow, node, key): everything that counts or joins under one key happens one at a time,
while other keys go on in parallel. Time is the database's `statement_timestamp()` (the one clock,
docs/design/rules.md rule 15), read by a statement after the one that took the lock, so every worker
judges a window by the same clock and a decision made after waiting for the lock sees the time it
was made at. Both are idempotent per run and node: a step run again
(a crash, a lost lease, a redelivery) finds what its first run decided and decides the same.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from uuid import UUID, uuid4

from django.conf import settings
from django.db import connection, transaction

from triggers.sql import STATUS_PARAMS, TRIGGER_TABLE
from workers.models import Digest, DigestEntry, ThrottlePass

THROTTLE_TABLE = ThrottlePass._meta.db_table
DIGEST_TABLE = Digest._meta.db_table
ENTRY_TABLE = DigestEntry._meta.db_table

_LOCK_SQL = "SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))"


def _lock(cursor: Any, kind: str, workflow_id: int, node_id: str, key: str) -> None:
    # A hash collision only makes two keys wait for each other, never count together.
    cursor.execute(_LOCK_SQL, [json.dumps([kind, workflow_id, node_id, key])])


# --- throttle -----------------------------------------------------------------------------------

_THROTTLE_SQL = f"""
WITH mine AS (
    SELECT 1 FROM {THROTTLE_TABLE} WHERE trigger_id = %(trigger)s AND node_id = %(node)s
), recent AS (
    SELECT count(*) AS n FROM {THROTTLE_TABLE}
    WHERE workflow_id = %(workflow)s AND node_id = %(node)s AND key = %(key)s
      AND passed_at > statement_timestamp() - %(window)s
), passed AS (
    INSERT INTO {THROTTLE_TABLE} (workflow_id, node_id, key, trigger_id, passed_at, expires_at)
    SELECT %(workflow)s, %(node)s, %(key)s, %(trigger)s, statement_timestamp(),
           statement_timestamp() + %(window)s
    WHERE NOT EXISTS (SELECT 1 FROM mine) AND (SELECT n FROM recent) < %(limit)s
    RETURNING 1
)
SELECT EXISTS (SELECT 1 FROM mine) OR EXISTS (SELECT 1 FROM passed),
       (SELECT n FROM recent) + (SELECT count(*) FROM passed)
"""  # noqa: S608 (table names from the models, values as parameters)


@dataclass(frozen=True)
class ThrottleCount:
    """Whether this run passed, and how many runs passed in the window (this one included)."""

    passed: bool
    count: int


def throttle_take(
    *, workflow_id: int, node_id: str, key: str, trigger_id: UUID, limit: int, window: timedelta
) -> ThrottleCount:
    """Let this run pass when fewer than `limit` runs passed the node with `key` in the last
    `window`; a run that already passed (this step run again) passes again, uncounted."""
    params: dict[str, Any] = {
        "workflow": workflow_id,
        "node": node_id,
        "key": key,
        "trigger": trigger_id,
        "limit": limit,
        "window": window,
    }
    with transaction.atomic(), connection.cursor() as cursor:
        _lock(cursor, "throttle", workflow_id, node_id, key)
        cursor.execute(_THROTTLE_SQL, params)
        passed, count = cursor.fetchone()
    return ThrottleCount(passed=bool(passed), count=int(count))


# --- digest -------------------------------------------------------------------------------------

_MEMBERSHIP_SQL = f"""
SELECT d.id, d.opener_id, d.closes_at, statement_timestamp()
FROM {ENTRY_TABLE} e JOIN {DIGEST_TABLE} d ON d.id = e.digest_id
WHERE e.trigger_id = %(trigger)s AND e.node_id = %(node)s
"""  # noqa: S608

# A digest collects while it is not closed, its window is not over, and its opener is alive: a
# digest whose opener was cancelled, deleted or failed would never be sent, so nothing joins it.
_COLLECTING_SQL = f"""
SELECT d.id, d.opener_id, d.closes_at, statement_timestamp() FROM {DIGEST_TABLE} d
JOIN {TRIGGER_TABLE} t ON t.id = d.opener_id
WHERE d.workflow_id = %(workflow)s AND d.node_id = %(node)s AND d.key = %(key)s
  AND d.closed_at IS NULL AND d.closes_at > statement_timestamp()
  AND t.status IN (%(st_enqueued)s, %(st_processing)s) AND t.deleted_at IS NULL
ORDER BY d.closes_at DESC LIMIT 1
"""  # noqa: S608

_OPEN_SQL = f"""
INSERT INTO {DIGEST_TABLE} (id, workflow_id, node_id, key, opener_id, opened_at, closes_at)
VALUES (%(digest)s, %(workflow)s, %(node)s, %(key)s, %(trigger)s, statement_timestamp(),
        statement_timestamp() + %(window)s)
RETURNING id, opener_id, closes_at, statement_timestamp()
"""  # noqa: S608

_JOIN_SQL = f"""
INSERT INTO {ENTRY_TABLE} (digest_id, trigger_id, node_id, payload, joined_at)
VALUES (%(digest)s, %(trigger)s, %(node)s, %(payload)s::jsonb, statement_timestamp())
"""  # noqa: S608

_CLOSE_SQL = f"""
UPDATE {DIGEST_TABLE} SET closed_at = COALESCE(closed_at, statement_timestamp())
WHERE id = %(digest)s AND closes_at <= statement_timestamp()
RETURNING closed_at
"""  # noqa: S608

# Every entry's time (`count`, `first_at`, `last_at`); the payload only of those the summary may
# show (NOTIFLOW_DIGEST_MAX_EVENTS, oldest first).
_ENTRIES_SQL = f"""
SELECT CASE WHEN row_number() OVER (ORDER BY joined_at, id) <= %(shown)s THEN payload::text END,
       joined_at
FROM {ENTRY_TABLE} WHERE digest_id = %(digest)s
ORDER BY joined_at, id
"""  # noqa: S608

# Working state the sweeper prunes (flow_state_prune): throttle passes past their window, and
# digests a week after their window closed (or was due to: an opener cancelled meanwhile never
# closes its digest). A batch at a time, so a sweep stays short.
_PRUNE_SQL = f"""
WITH passes AS (
    DELETE FROM {THROTTLE_TABLE} WHERE id IN (
        SELECT id FROM {THROTTLE_TABLE} WHERE expires_at < statement_timestamp() LIMIT %(batch)s)
    RETURNING 1
), digests AS (
    DELETE FROM {DIGEST_TABLE} WHERE id IN (
        SELECT id FROM {DIGEST_TABLE} WHERE closes_at < statement_timestamp() - interval '7 days'
        LIMIT %(batch)s)
    RETURNING id
), entries AS (
    DELETE FROM {ENTRY_TABLE} WHERE digest_id IN (SELECT id FROM digests) RETURNING 1
)
SELECT (SELECT count(*) FROM passes), (SELECT count(*) FROM digests),
       (SELECT count(*) FROM entries)
"""  # noqa: S608


@dataclass(frozen=True)
class DigestReach:
    """Where a run stands at a digest node.

    `opener` is whether it opened the digest (and so sends it); `summary` is set once the
    opener finds the window over: the digest is closed and this is what it holds.
    """

    digest_id: UUID
    opener: bool
    opener_id: UUID
    closes_at: datetime
    summary: dict[str, Any] | None = None


def digest_reach(
    *,
    workflow_id: int,
    node_id: str,
    key: str,
    trigger_id: UUID,
    payload_json: str,
    window: timedelta,
) -> DigestReach:
    """Join the digest collecting for `key`, or open one when none is; for the run that opened
    it and finds its window over, close it and read what it holds.

    Joining and closing take the same lock, and a digest is joined only while it is not closed
    and its window is not over by the database's clock, so a run is either in the summary its
    opener reads or opens the next digest, never both and never neither.
    """
    params: dict[str, Any] = {
        **STATUS_PARAMS,
        "workflow": workflow_id,
        "node": node_id,
        "key": key,
        "trigger": trigger_id,
        "payload": payload_json,
        "window": window,
    }
    with transaction.atomic(), connection.cursor() as cursor:
        _lock(cursor, "digest", workflow_id, node_id, key)
        cursor.execute(_MEMBERSHIP_SQL, params)
        row = cursor.fetchone()
        if row is None:  # not in a digest yet: join the collecting one, or open the next
            cursor.execute(_COLLECTING_SQL, params)
            row = cursor.fetchone()
            if row is None:
                cursor.execute(_OPEN_SQL, {**params, "digest": uuid4()})
                row = cursor.fetchone()
            cursor.execute(_JOIN_SQL, {**params, "digest": row[0]})
        digest_id, opener_id, closes_at, clock = row
        reach = DigestReach(
            digest_id=digest_id,
            opener=str(opener_id) == str(trigger_id),
            opener_id=opener_id,
            closes_at=closes_at,
        )
        if not reach.opener or clock < closes_at:
            return reach
        cursor.execute(_CLOSE_SQL, {"digest": digest_id})
        if cursor.fetchone() is None:  # the database's clock is behind the row's: not yet
            return reach
        cursor.execute(
            _ENTRIES_SQL, {"digest": digest_id, "shown": settings.NOTIFLOW_DIGEST_MAX_EVENTS}
        )
        entries = cursor.fetchall()
    return DigestReach(
        digest_id=digest_id,
        opener=True,
        opener_id=opener_id,
        closes_at=closes_at,
        summary=_summary(digest_id, entries),
    )


def _summary(digest_id: UUID, entries: list[tuple[str | None, datetime]]) -> dict[str, Any]:
    """A closed digest as its opener's templates see it (`vars.digest_<id>`): its oldest
    payloads, at most NOTIFLOW_DIGEST_MAX_EVENTS of them and at most NOTIFLOW_DIGEST_MAX_BYTES of
    their JSON in all (the summary is copied into vars, the run's `trigger.completed` body and
    what later steps read); `count` is every run it holds, shown or not."""
    events: list[Any] = []
    size = 0
    for payload, _ in entries[: settings.NOTIFLOW_DIGEST_MAX_EVENTS]:
        size += len(payload or "")
        if payload is None or size > settings.NOTIFLOW_DIGEST_MAX_BYTES:
            break
        events.append(json.loads(payload))
    return {
        "id": str(digest_id),
        "count": len(entries),
        "events": events,
        "first_at": entries[0][1].isoformat(),
        "last_at": entries[-1][1].isoformat(),
    }


def flow_state_prune(batch: int = 1000) -> tuple[int, int, int]:
    """Delete a batch of expired throttle passes and of week-old digests (with their entries):
    counts of each."""
    with connection.cursor() as cursor:
        cursor.execute(_PRUNE_SQL, {"batch": batch})
        passes, digests, entries = cursor.fetchone()
    return int(passes), int(digests), int(entries)

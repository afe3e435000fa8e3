"""The outbox's SQL, in one place: the write that records events and fans them out to the
endpoints that subscribe, in the transaction of the change they announce (docs/design.md,
rule 10).

Two CTEs that ride along in another statement (the engine's release, triggers/sql.py) or run on
their own (outbox_statement):

- `outbox` inserts the events given as a JSON array in `%(ev_events)s`, in order (so `id`
  orders one trigger's events), and only those some endpoint subscribes to: an event nobody
  would receive is not written. With a `condition` (SQL over the event row `e`, which has the
  caller's `gate` label), only the events it holds for: the release writes each event only
  along with the change it announces.
- `outbox_deliveries` inserts one pending delivery per (event, subscribing endpoint), disabled
  endpoints included (they keep their events), and returns the ids to nudge.

An endpoint subscribes to an event when its `events` holds the event's name or `*`, and its
`workflows` is empty or holds the event's workflow key: SUBSCRIBES, the one statement of it.
"""

from __future__ import annotations

from functools import lru_cache

from events.models import (
    DeliveryStatus,
    OutboxEvent,
    WebhookAttempt,
    WebhookDelivery,
    WebhookEndpoint,
)

EVENT_TABLE = OutboxEvent._meta.db_table
ENDPOINT_TABLE = WebhookEndpoint._meta.db_table
DELIVERY_TABLE = WebhookDelivery._meta.db_table

OUTBOX_CTE = "outbox"
DELIVERIES_CTE = "outbox_deliveries"


def subscribes(endpoint: str, event: str) -> str:
    """SQL: endpoint row `endpoint` subscribes to event row `event` (with `type`, `workflow_key`)."""
    return (
        f"({event}.type = ANY ({endpoint}.events) OR '*' = ANY ({endpoint}.events))"
        f" AND ({endpoint}.workflows = '{{}}' OR {event}.workflow_key = ANY ({endpoint}.workflows))"
    )


@lru_cache(maxsize=4)
def outbox_insert_sql(condition: str | None = None) -> str:
    """The CTE `outbox`: the events of `%(ev_events)s` that someone subscribes to (and for
    which `condition` holds)."""
    gated = f"({condition}) AND " if condition else ""
    # First a test that reads no event row: PostgreSQL makes it a one-time filter, so with no
    # endpoint at all the events are not even read out of their JSON (the engine pays for this
    # CTE on every send step).
    gated = f"EXISTS (SELECT 1 FROM {ENDPOINT_TABLE}) AND {gated}"  # noqa: S608
    return f"""
INSERT INTO {EVENT_TABLE} (event_id, type, trigger_id, workflow_key, data, time)
SELECT e.event_id, e.type, e.trigger_id, e.workflow_key, e.data, now()
FROM ROWS FROM (jsonb_to_recordset(%(ev_events)s::jsonb)
                AS (event_id uuid, type text, trigger_id uuid, workflow_key text, data jsonb,
                    gate text))
     WITH ORDINALITY AS e(event_id, type, trigger_id, workflow_key, data, gate, n)
WHERE {gated}EXISTS (SELECT 1 FROM {ENDPOINT_TABLE} w WHERE {subscribes("w", "e")})
ORDER BY e.n
RETURNING id, type, workflow_key
"""  # noqa: S608 (names from the models, values as parameters)


DELIVERIES_INSERT_SQL = f"""
INSERT INTO {DELIVERY_TABLE} (event_id, endpoint_id, status, attempts, available_at, nudged_at,
                              last_error, leased_by, created_at, updated_at)
SELECT {OUTBOX_CTE}.id, w.id, %(ev_pending)s, 0, now(),
       CASE WHEN w.disabled_at IS NULL THEN now() END, '', '', now(), now()
FROM {OUTBOX_CTE} JOIN {ENDPOINT_TABLE} w ON {subscribes("w", OUTBOX_CTE)}
RETURNING id, endpoint_id
"""  # noqa: S608 (names from the models, values as parameters)

# The deliveries to nudge after commit: those to endpoints that are enabled (nudged_at set).
DELIVERIES_RETURNS = (
    f"(SELECT array_agg(d.id) FROM {DELIVERIES_CTE} d JOIN {ENDPOINT_TABLE} w "  # noqa: S608
    f"ON w.id = d.endpoint_id WHERE w.disabled_at IS NULL)",
)

# The same on its own, for a change made through the ORM (cancel, delete) or a ping.
OUTBOX_SQL = f"""
WITH {OUTBOX_CTE} AS ({outbox_insert_sql()}), {DELIVERIES_CTE} AS ({DELIVERIES_INSERT_SQL})
SELECT {DELIVERIES_RETURNS[0]}
"""

OUTBOX_STATIC_PARAMS = {"ev_pending": DeliveryStatus.PENDING.value}


# --- retention ----------------------------------------------------------------------------------

# What `notiflow_purge_events_batch` (events migration 0002) deletes, children first, in its
# columns' order: events written before the cutoff whose deliveries are all over (an event still
# pending somewhere, a disabled endpoint included, is kept), with their deliveries and attempts.
ATTEMPT_TABLE = WebhookAttempt._meta.db_table
EVENT_PURGED_TABLES = (ATTEMPT_TABLE, DELIVERY_TABLE, EVENT_TABLE)
EVENT_PURGE_BATCH_SQL = "SELECT * FROM notiflow_purge_events_batch(%(cutoff)s, %(batch)s)"
_PURGEABLE = f"""
SELECT o.id, o.event_id FROM {EVENT_TABLE} o
WHERE o.time < %(cutoff)s
  AND NOT EXISTS (SELECT 1 FROM {DELIVERY_TABLE} d
                  WHERE d.event_id = o.id AND d.status = %(ev_pending)s)
"""  # noqa: S608 (names from the models, values as parameters)
# The dry run's counts, per table of EVENT_PURGED_TABLES.
EVENT_PURGE_COUNT_SQL = {
    ATTEMPT_TABLE: f"SELECT count(*) FROM {ATTEMPT_TABLE} a JOIN ({_PURGEABLE}) o ON a.event_id = o.event_id",  # noqa: S608
    DELIVERY_TABLE: f"SELECT count(*) FROM {DELIVERY_TABLE} d JOIN ({_PURGEABLE}) o ON d.event_id = o.id",  # noqa: S608
    EVENT_TABLE: f"SELECT count(*) FROM ({_PURGEABLE}) o",  # noqa: S608
}


# --- the dispatcher's claim and finish (leased work: common/leased_work.py) ---------------------

# One statement each, whole in events migration 0004: the claim (the endpoint's turn, the due and
# free delivery, an abandoned attempt finished, the cap, the endpoint's concurrency, the lease,
# the attempt started) and the fenced finish (the attempt's outcome, the delivery's, the back-off
# due at now() + the wait passed, the endpoint's failure count).
DELIVERY_CLAIM_SQL = """
SELECT * FROM notiflow_delivery_claim_v1(
    %(id)s::bigint, %(token)s::text, %(lease)s::float8, %(max_attempts)s::integer,
    %(concurrency)s::integer, %(defer)s::float8, %(defer_nudged)s::boolean,
    %(disable_after)s::integer)
"""
DELIVERY_FINISH_SQL = """
SELECT * FROM notiflow_delivery_finish_v1(
    %(id)s::bigint, %(token)s::text, %(attempt_id)s::bigint, %(answer)s::text,
    %(status_code)s::integer, %(error)s::text, %(duration_ms)s::integer, %(retry)s::float8,
    %(retry_nudged)s::boolean, %(max_attempts)s::integer, %(disable_after)s::integer)
"""

"""The outbox's SQL, in one place: the write that records events and fans them out to the
endpoints that subscribe, in the transaction of the change they announce (docs/design/rules.md,
rule 10).

The write is the database function `notiflow_outbox_write_v2(announced, open_gate)` (triggers
migration 0022): it inserts the events of the JSON array `announced` labelled `open_gate`, in
order (so `id` orders one trigger's events), and only those some endpoint subscribes to (an
event nobody would receive is not written); one pending delivery per (event, subscribing
endpoint), disabled endpoints included (they keep their events); and returns the ids of those to
enabled endpoints, to nudge. The engine's release calls it inside `notiflow_release_v6`;
OUTBOX_SQL calls it on its own.

An endpoint subscribes to an event when its `events` holds the event's name or `*`, and its
`workflows` is empty or holds the event's workflow key: `notiflow_subscribes_v1`, the one
statement of it, which the write calls.
"""

from __future__ import annotations

from events.models import (
    OutboxEvent,
    WebhookAttempt,
    WebhookDelivery,
    WebhookEndpoint,
)

EVENT_TABLE = OutboxEvent._meta.db_table
ENDPOINT_TABLE = WebhookEndpoint._meta.db_table
DELIVERY_TABLE = WebhookDelivery._meta.db_table

OUTBOX_WRITE_FUNCTION = "notiflow_outbox_write_v2"

# For a change made through the ORM (cancel, delete) or a ping: its events (all labelled '').
OUTBOX_SQL = f"SELECT {OUTBOX_WRITE_FUNCTION}(%(events)s::jsonb, '')"


# --- retention ----------------------------------------------------------------------------------

# What `notiflow_purge_events_batch` (events migration 0002) deletes, children first, in its
# columns' order: events written before the cutoff whose deliveries are all over (an event still
# pending somewhere, a disabled endpoint included, is kept), with their deliveries and attempts.
# Which events, is `notiflow_events_purgeable_v1` (events migration 0005), which the function
# reads too.
ATTEMPT_TABLE = WebhookAttempt._meta.db_table
EVENT_PURGED_TABLES = (ATTEMPT_TABLE, DELIVERY_TABLE, EVENT_TABLE)
EVENT_PURGE_BATCH_SQL = "SELECT * FROM notiflow_purge_events_batch(%(cutoff)s, %(batch)s)"
_PURGEABLE = "SELECT o.id, o.event_id FROM notiflow_events_purgeable_v1(%(cutoff)s) o"
# The dry run's counts, per table of EVENT_PURGED_TABLES.
EVENT_PURGE_COUNT_SQL = {
    ATTEMPT_TABLE: f"SELECT count(*) FROM {ATTEMPT_TABLE} a JOIN ({_PURGEABLE}) o ON a.event_id = o.event_id",  # noqa: S608
    DELIVERY_TABLE: f"SELECT count(*) FROM {DELIVERY_TABLE} d JOIN ({_PURGEABLE}) o ON d.event_id = o.id",  # noqa: S608
    EVENT_TABLE: f"SELECT count(*) FROM ({_PURGEABLE}) o",  # noqa: S608
}


# --- the dispatcher's claim and finish (leased work: common/leased_work.py) ---------------------

# One statement each, whole in events migrations 0006 (the claim) and 0004 (the finish): the claim (the endpoint's turn, the due and
# free delivery, an abandoned attempt finished, the cap, the endpoint's concurrency, the lease,
# the attempt started) and the fenced finish (the attempt's outcome, the delivery's, the back-off
# due at the database's clock + the wait passed, the endpoint's failure count).
DELIVERY_CLAIM_SQL = """
SELECT * FROM notiflow_delivery_claim_v2(
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

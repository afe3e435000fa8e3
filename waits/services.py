"""Event waits' verbs (docs/design/waits.md, "Waiting for events"): store an event and resume the
runs waiting for it, register a run's wait, time waits out, purge. The statements are
waits/sql.py; why they resolve each wait exactly once is said there."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import connection, transaction

from common import tracing
from common.leases import lease_token
from common.metrics import event_posted_observe, waits_timed_out_observe
from common.statements import statement_load
from triggers.dispatch import Nudge, triggers_enqueue_on_commit
from waits import sql

# The most events one POST /api/events/bulk/ takes.
EVENTS_BULK_MAX = 1000
EVENT_ID_MAX = 255
EVENT_NAME_MAX = 200
# The most events of its name a wait's look-back reads (the newest within its lookback), so that
# its cost does not grow with the events a client posts (docs/security/findings.md, "Posted events").
LOOKBACK_READ_MAX = 1000

CREATED, SAME, CONFLICT = "created", "same", "conflict"
# What a wait's timeout did (wait_time_out).
RESUMED, CLOSED = "resumed", "closed"
_CLAIM_SQL = statement_load(__file__, "wait_claim")
_GIVE_BACK_SQL = statement_load(__file__, "wait_give_back")


def match_text(value: Any) -> str:
    """A value as a match compares it: a string as is, anything else as its JSON (what
    PostgreSQL's `->>` gives for a number, a boolean or null)."""
    return value if isinstance(value, str) else json.dumps(value, separators=(", ", ": "))


def match_hash(name: str, match: dict[str, str]) -> str:
    """The key an open wait is found by: the event name and its match values, canonical."""
    canonical = json.dumps([name, sorted(match.items())], separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


def event_hashes(name: str, data: dict[str, Any], shapes: list[list[str]]) -> list[str]:
    """The match hashes an event with `data` satisfies: one per key set the waits for `name`
    use whose keys are all in `data`."""
    return [
        match_hash(name, {key: match_text(data[key]) for key in keys})
        for keys in shapes
        if all(key in data for key in keys)
    ]


def event_data_hash(name: str, data: dict[str, Any]) -> str:
    canonical = json.dumps([name, data], sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


@dataclass(frozen=True)
class EventOutcome:
    """What posting one event did: `created` (new), `same` (the id again with the same data) or
    `conflict` (the id again with other data: nothing resumed); the runs it resumed."""

    outcome: str
    resumed: int = 0


def event_receive(
    *,
    name: str,
    event_id: str,
    data: dict[str, Any],
    actor: str,
    workflows: list[str] | None = None,
    api_key_id: int | None = None,
) -> EventOutcome:
    """Store the event (idempotent by `event_id`) with its poster (`actor`, the API key's id and
    `workflows`, that key's limit), committed, then resume every run waiting for it whose match
    it satisfies, of `workflows` only when given. A later look-back takes it only for a run of
    `workflows`, when given, too. A repeat
    with the same data resumes again what the first may not have (a crash in between), and
    resumes no run twice: each wait is resolved once (waits/sql.py). Not inside a transaction:
    the event must be committed before the waits are looked for."""
    params = {
        "event_id": event_id,
        "name": name,
        "data": json.dumps(data),
        "data_hash": event_data_hash(name, data),
        "created_by": actor,
        "api_key_id": api_key_id,
        "workflows": workflows,
    }
    with connection.cursor() as cursor:
        row = None
        while row is None:  # a concurrent first post of the id committed after our snapshot
            cursor.execute(sql.EVENT_STORE_SQL, params)
            row = cursor.fetchone()
        _id, stored_hash, created_at, created = row
    if stored_hash != params["data_hash"]:
        event_posted_observe(outcome=CONFLICT, resumed=0)
        return EventOutcome(CONFLICT)
    event = {"id": event_id, "name": name, "data": data, "received_at": created_at.isoformat()}
    resumed = _resume(name=name, event_id=event_id, event=event, actor=actor, workflows=workflows)
    outcome = EventOutcome(CREATED if created else SAME, resumed)
    event_posted_observe(outcome=outcome.outcome, resumed=resumed)
    return outcome


def _resume(
    *, name: str, event_id: str, event: dict[str, Any], actor: str, workflows: list[str] | None
) -> int:
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(sql.SHAPES_SQL, {"name": name})
        shapes = [json.loads(keys) for (keys,) in cursor.fetchall()]
        hashes = event_hashes(name, event["data"], shapes)
        if not hashes:
            return 0
        cursor.execute(
            sql.RESUME_SQL,
            {
                "name": name,
                "event_id": event_id,
                "hashes": hashes,
                "workflows": workflows,
                "event": json.dumps(event),
                "actor": actor,
                "trace_context": tracing.traceparent(),
            },
        )
        rows = cursor.fetchall()
        nudges = [Nudge(row[1], queue=row[2], priority=row[3]) for row in rows if row[1]]
        triggers_enqueue_on_commit(nudges)
        return int(rows[0][0]) if rows else 0


def waits_cancel(trigger_ids: list[Any]) -> int:
    """Close the open waits of the runs a cancel stopped, in the cancel's transaction
    (triggers.hooks.CANCELLED_HOOKS, registered in waits/hooks.py); how many."""
    with connection.cursor() as cursor:
        cursor.execute(sql.WAITS_CANCEL_SQL, {"trigger_ids": [str(each) for each in trigger_ids]})
        return cursor.rowcount


def wait_time_out(*, wait_id: int, worker_id: str) -> str | None:
    """Close the open wait `wait_id` past its deadline under a lease (leased work: waits/work.py),
    as its timeout task does: claimed (nothing when another worker holds it, or it is resolved
    or not yet due), then in one transaction resolved as timed out (or received with its
    message's recorded state) and its run, `waiting` at the node, resumed through triggers'
    function and nudged after commit. A run being worked on is not waited for: the wait is given
    back and the next sweep nudges it again. What it did: RESUMED, CLOSED (no run to resume),
    or None."""
    token = lease_token(worker_id)
    ids: dict[str, Any] = {"id": wait_id, "token": token}
    with connection.cursor() as cursor:
        cursor.execute(_CLAIM_SQL, {**ids, "lease": settings.NOTIFLOW_LEASE_SECONDS})
        if cursor.fetchone() is None:
            return None
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(sql.WAIT_TIME_OUT_SQL, {**ids, **sql.RECORDED_PARAMS})
        row = cursor.fetchone()
        if row is None:
            cursor.execute(_GIVE_BACK_SQL, ids)
            return None
        _closed, run_id, queue, priority = row
        if run_id is None:
            return CLOSED
        triggers_enqueue_on_commit([Nudge(run_id, queue=queue, priority=priority)])
    waits_timed_out_observe(resumed=1)
    return RESUMED


@dataclass(frozen=True)
class WaitState:
    """A run's wait at a node, as the node reads it (workflows.nodes.base.EventWaitState);
    `trace_context`: the traceparent of the post that resolved it, if traced."""

    resolved: bool
    received: bool
    timed_out: bool
    event: dict[str, Any] | None
    deadline: datetime
    trace_context: str = ""


def _state(row: tuple[Any, ...]) -> WaitState:
    _created_at, resolved_at, received, timed_out, event, deadline, trace_context = row
    if isinstance(event, str):
        event = json.loads(event)
    return WaitState(resolved_at is not None, received, timed_out, event, deadline, trace_context)


def wait_register(
    *,
    trigger_id: str,
    node_id: str,
    workflow_id: int,
    name: str,
    match: dict[str, str],
    deadline: datetime,
    lookback: timedelta,
) -> WaitState:
    """Register the run's wait at the node (once: a step run again finds the first), committed;
    then take an event that came first, within `lookback` of the registration, posted by a key
    that could reach this run's workflow, among the newest LOOKBACK_READ_MAX of its name; then
    close it
    as timed out if its deadline passed. Outside any transaction (commit, then look)."""
    keys = sorted(match)
    ids = {"trigger_id": trigger_id, "node_id": node_id}
    with connection.cursor() as cursor:
        cursor.execute(
            sql.WAIT_REGISTER_SQL,
            {
                **ids,
                "workflow_id": workflow_id,
                "name": name,
                "match": json.dumps(match),
                "match_hash": match_hash(name, match),
                "keys": json.dumps(keys),
                "keys_text": json.dumps(keys),
                "deadline": deadline,
            },
        )
        state = _state(cursor.fetchone())
        if state.resolved:
            return state
        cursor.execute(
            sql.WAIT_LOOKBACK_SQL,
            {
                **ids,
                **sql.RECORDED_PARAMS,
                "lookback": lookback.total_seconds(),
                "read_max": LOOKBACK_READ_MAX,
            },
        )
        cursor.execute(sql.WAIT_EXPIRE_SQL, {**ids, **sql.RECORDED_PARAMS})
        cursor.execute(sql.WAIT_READ_SQL, ids)
        return _state(cursor.fetchone())


def wait_park(*, trigger_id: str, node_id: str, name: str) -> tuple[str, dict[str, Any]]:
    """The write (NodeRun.writes) that leaves the run `waiting` after the step's release."""
    return sql.PARK_SQL, {"trigger_id": trigger_id, "node_id": node_id, "name": name}


def longest_lookback() -> timedelta:
    """The longest `lookback` any node of any workflow version declares (0: none), asked of the
    node types that take posted events (workflows.nodes, `takes_posted_events`)."""
    from django.db.models import Q

    from workflows.models import WorkflowVersion
    from workflows.nodes import NODE_TYPES, node_type_of

    taking = [name for name, kind in NODE_TYPES.items() if kind.takes_posted_events]
    if not taking:
        return timedelta(0)
    holding = Q()
    for name in taking:
        holding |= Q(definition__nodes__contains=[{"type": name}])
    longest = timedelta(0)
    versions = WorkflowVersion.objects.filter(holding).values_list("definition", flat=True)
    for definition in versions.iterator():
        for node in definition.get("nodes", []):
            kind = node_type_of(node)
            if kind is None or not kind.takes_posted_events:
                continue
            try:
                longest = max(longest, kind.lookback(node))
            except ValueError:
                continue
    return longest


def events_purge(
    *, older_than: timedelta, batch: int = 1000, dry_run: bool = False
) -> tuple[int, int]:
    """Delete events received more than `older_than` ago, but never within the longest
    lookback a workflow declares (a run reaching its node may still take them), and the
    waits resolved as long ago whose run has ended or is gone; (events, waits) deleted, or with
    `dry_run` counted and kept."""
    older_than = max(older_than, longest_lookback())
    events = waits = 0
    with connection.cursor() as cursor:
        if dry_run:
            cutoff = {"cutoff": _cutoff(cursor, older_than)}
            cursor.execute(sql.EVENTS_PURGE_COUNT_SQL, cutoff)
            events = cursor.fetchone()[0]
            cursor.execute(sql.WAITS_PURGE_COUNT_SQL, cutoff)
            return events, cursor.fetchone()[0]
        while True:
            cursor.execute(
                sql.EVENTS_PURGE_SQL,
                {"cutoff": _cutoff(cursor, older_than), "batch": batch},
            )
            events += cursor.rowcount
            if cursor.rowcount < batch:
                break
        while True:
            cursor.execute(
                sql.WAITS_PURGE_SQL, {"cutoff": _cutoff(cursor, older_than), "batch": batch}
            )
            waits += cursor.rowcount
            if cursor.rowcount < batch:
                break
    return events, waits


def _cutoff(cursor: Any, older_than: timedelta) -> datetime:
    cursor.execute("SELECT statement_timestamp() - %s", [older_than])
    return cursor.fetchone()[0]

"""The engagement funnel's cost on a history of the bench's size (issue 49 §3): a workflow's
24-hour funnel (deliveries.funnel `workflow_funnel`, what `GET /api/workflows/<key>/funnel/`
and the admin's panel read), uncached, at the end of a history shaped like scale's (1 run per
2 s, email -> sms -> email, bench/scale.py) but with what the engine now writes beside each step:
the step log's decision, the send ledger row of each send, and providers' reports about the
messages. Its last 24 hours are full: 43,200 runs and their 129,600 step logs once the history
holds that many.

Written by PostgreSQL itself in batches, as scale's is, with the triggers off; its reports then
counted into the rollup by deliveries migration 0006's own backfill (what an upgrade does once)
and its step logs by the funnel's sweep (migration 0008): the rollup the workers, the sweep and
the reports would have left, without a million runs' worth of row triggers on this shared
2-core machine. What the writers pay for the rollup is measured beside it: the same history's
first WRITERS_TRIGGERS runs loaded again under two other workflows, once with every trigger off
and once through the reports' row triggers, then the sweep's CPU to roll up their step logs
(both loads': their step logs carry a txid either way). Per run: the three
steps decided (`sent`; one SMS in ten `skipped`, with no ledger row; one follow-up in 200
`failed`), and about the emails delivered (97 %), bounced (2 %), opened (40 %, one in four of
them twice), clicked (8 %), complained (1 %) and unsubscribed (1 %), and the SMS delivered.

The `funnel` part of `make bench` runs it in its own database; alone, on a database loaded so:

    DATABASE_URL=postgres://.../<that database> DJANGO_DEBUG=1 \\
        python -m bench.funnel --workflow <key>
"""

from __future__ import annotations

import argparse
import os
import time
from dataclasses import dataclass
from typing import Any

import psycopg

from bench.loading import batches_load

FUNNEL_REPEAT = 5
WRITERS_TRIGGERS = 20_000
BATCH = 50_000

# Each statement recomputes the batch's runs from the series: the run's id is a hash of its
# number, its time 2 s after the one before, ending now - 30 days for a million.
_RUNS = """
FROM generate_series(%(first)s::int, %(last)s::int) AS i,
     LATERAL (SELECT md5(%(prefix)s || i)::uuid AS id,
                     now() - interval '60 days' + i * interval '2 seconds' AS t,
                     (i::bigint * 7919) %% 100 AS h) AS r
"""
_NODES = "(VALUES (0, 'welcome', 'email'), (1, 'text', 'sms'), (2, 'follow_up', 'email'))"
# The node's decision: one SMS in ten skipped, one follow-up in 200 failed, the rest sent.
_DECISION = """
CASE WHEN n.node_id = 'text' AND i %% 10 = 0 THEN 'skipped'
     WHEN n.node_id = 'follow_up' AND i %% 200 = 0 THEN 'failed' ELSE 'sent' END
"""

LOAD_SQL = f"""
INSERT INTO trigger_instance
    (id, workflow_id, workflow_version_id, idempotency_key, payload, status, current_node_id,
     vars, attempts, available_at, lease_until, leased_by, nudged_at, last_error, created_at,
     updated_at, completed_at)
SELECT r.id, %(workflow)s, %(version)s, %(prefix)s || i,
       jsonb_build_object('email', 'user' || i || '@example.com', 'name', 'User ' || i,
                          'phone', '+1555' || lpad(i::text, 7, '0')),
       CASE WHEN i %% 200 = 0 THEN 'failed' ELSE 'completed' END, NULL, '{{}}'::jsonb, 0, r.t,
       NULL, '', NULL, '', r.t, r.t + interval '2 seconds', r.t + interval '2 seconds'
{_RUNS};

INSERT INTO send_ledger
    (trigger_id, node_id, idempotency_key, channel, status, send_count, result, created_at,
     sent_at, provider, provider_message_id, providers)
SELECT r.id, n.node_id, r.id || ':' || n.node_id, n.channel, 'sent', 1,
       jsonb_build_object('to', CASE n.channel WHEN 'sms' THEN '+1555' || lpad(i::text, 7, '0')
                                ELSE 'user' || i || '@example.com' END),
       r.t + n.pos * interval '500 milliseconds', r.t + n.pos * interval '500 milliseconds',
       CASE n.channel WHEN 'sms' THEN 'twilio' ELSE 'ses' END, r.id || '.' || n.node_id,
       ARRAY[CASE n.channel WHEN 'sms' THEN 'twilio' ELSE 'ses' END]
{_RUNS} CROSS JOIN {_NODES} AS n(pos, node_id, channel)
WHERE {_DECISION} = 'sent';

INSERT INTO step_log (trigger_id, workflow_id, node_id, node_type, attempt, started_at,
                      finished_at, input, output, success, error)
SELECT r.id, %(workflow)s, n.node_id, n.channel, 1,
       r.t + n.pos * interval '500 milliseconds',
       r.t + n.pos * interval '500 milliseconds' + interval '20 milliseconds',
       jsonb_build_object('payload', jsonb_build_object('email', 'user' || i || '@example.com'),
                          'vars', '{{}}'::jsonb, 'now', r.t),
       jsonb_build_object('message_id', r.id || '.' || n.node_id,
                          'decision', jsonb_build_object('decision', {_DECISION},
                                                         'reason', 'bench', 'rule', '',
                                                         'evidence', '{{}}'::jsonb)),
       {_DECISION} <> 'failed', CASE WHEN {_DECISION} = 'failed' THEN 'bench' ELSE '' END
{_RUNS} CROSS JOIN {_NODES} AS n(pos, node_id, channel);

INSERT INTO delivery_event (trigger_id, node_id, channel, provider, event, recipient,
                            provider_message_id, dedupe_key, occurred_at, description, raw)
SELECT r.id, n.node_id, n.channel, 'ses', e.event, 'user' || i || '@example.com',
       r.id || '.' || n.node_id, md5(r.id || n.node_id || e.event || e.nth),
       r.t + e.nth * interval '10 minutes', '', '{{}}'::jsonb
{_RUNS} CROSS JOIN {_NODES} AS n(pos, node_id, channel)
CROSS JOIN LATERAL (VALUES ('delivered', 1, r.h >= 3), ('bounced', 1, r.h < 2),
                           ('opened', 2, r.h BETWEEN 3 AND 42),
                           ('opened', 3, r.h BETWEEN 3 AND 12),
                           ('clicked', 4, r.h BETWEEN 3 AND 10),
                           ('complained', 5, r.h = 50), ('unsubscribed', 5, r.h = 51))
     AS e(event, nth, happened)
WHERE n.channel = 'email' AND e.happened AND NOT (n.node_id = 'follow_up' AND i %% 200 = 0);

INSERT INTO delivery_event (trigger_id, node_id, channel, provider, event, recipient,
                            provider_message_id, dedupe_key, occurred_at, description, raw)
SELECT r.id, 'text', 'sms', 'twilio', 'delivered', '+1555' || lpad(i::text, 7, '0'),
       r.id || '.text', md5(r.id || 'text-delivered'), r.t + interval '5 seconds', '', '{{}}'::jsonb
{_RUNS}
WHERE i %% 10 <> 0 AND r.h < 95;
"""


def funnel_history_load(
    url: str, *, workflow: int, version: int, triggers: int, rollup: bool = True
) -> float:
    """Load `triggers` runs with their steps, sends and reports; returns the seconds it took.
    `rollup=False` loads them with every trigger off (session_replication_role = replica): the
    facts alone, for funnel_backfill to count, or to compare the writers' cost with."""
    started = time.monotonic()
    with psycopg.connect(url, autocommit=True) as conn:
        if not rollup:
            conn.execute("SET session_replication_role = replica")
        batches_load(
            conn,
            LOAD_SQL,
            count=triggers,
            batch=BATCH,
            workflow=workflow,
            version=version,
            prefix=f"funnel-{workflow}-",
            on_batch=lambda last: print(
                f"  loaded {last:,}/{triggers:,} runs with their reports", flush=True
            ),
        )
    return time.monotonic() - started


def report_backfill() -> list[str]:
    """Deliveries migration 0006's backfill of the reports (its statement on delivery_event);
    its step logs' statement is the sweep's to do now: their rows carry a txid (migration 0008),
    and the sweep would count them a second time."""
    import importlib

    backfill = importlib.import_module("deliveries.migrations.0006_funnel_count").BACKFILL
    return [s for s in backfill.split(";\n\n") if "FROM delivery_event" in s]


@dataclass(frozen=True)
class SweepRun:
    """The funnel's sweeps that counted every step log committed before them: how many, the
    CPU of their PostgreSQL backend (from /proc) and the wall clock."""

    step_logs: int
    cpu_ms: float
    seconds: float

    @property
    def cpu_ms_per_10k(self) -> float:
        return self.cpu_ms * 10_000 / self.step_logs if self.step_logs else 0.0

    def __str__(self) -> str:
        return (
            f"sweep: {self.step_logs:,} step logs rolled up in {self.seconds:.2f} s,"
            f" {self.cpu_ms:.0f} ms of its backend's CPU ({self.cpu_ms_per_10k:.1f} ms per 10,000)"
        )


def funnel_sweep_all(url: str, *, timeout: float = 600) -> SweepRun:
    """Sweep (notiflow_funnel_sweep_v1) until the watermark passes every step log committed
    before this call. The watermark waits for the server's oldest open transaction, another
    session's too: the sweep is called again, every 0.2 s, until then (at most `timeout`)."""
    from bench.cpu import cpu_seconds

    started = time.monotonic()
    counted = 0
    with psycopg.connect(url, autocommit=True) as conn:
        pid, target = conn.execute(
            "SELECT pg_backend_pid(), pg_current_xact_id()::text::bigint"
        ).fetchone() or (0, 0)
        cpu = cpu_seconds(pid)
        while True:
            row = conn.execute("SELECT notiflow_funnel_sweep_v1()").fetchone()
            counted += int(row[0]) if row else 0
            mark = conn.execute("SELECT swept_below::text::bigint FROM funnel_sweep").fetchone()
            if mark and mark[0] > target:
                break
            if time.monotonic() - started > timeout:
                raise TimeoutError(f"the funnel's watermark did not pass {target} in {timeout} s")
            time.sleep(0.2)
        cpu = cpu_seconds(pid) - cpu
    return SweepRun(counted, 1000 * cpu, time.monotonic() - started)


def funnel_backfill(url: str) -> float:
    """Count what is in delivery_event into funnel_count with deliveries migration 0006's own
    backfill (what an upgrade runs once), and what is in step_log with the funnel's sweep; then
    VACUUM ANALYZE. Returns the seconds."""
    started = time.monotonic()
    with psycopg.connect(url, autocommit=True) as conn, conn.transaction():
        for statement in report_backfill():
            conn.execute(statement)
    funnel_sweep_all(url)
    with psycopg.connect(url, autocommit=True) as conn:
        for table in ("trigger_instance", "step_log", "send_ledger", "delivery_event"):
            conn.execute(f"VACUUM ANALYZE {table}")
        conn.execute("VACUUM ANALYZE funnel_count")
    return time.monotonic() - started


@dataclass(frozen=True)
class FunnelRun:
    """Milliseconds per read of the 24-hour funnel (uncached), with what it read and counted."""

    load_seconds: float
    backfill_seconds: float
    rollup_rows: int
    window_rows: int
    window_sent: int
    read_ms: list[float]
    plan: str

    def __str__(self) -> str:
        from bench.report import spread

        return (
            f"funnel: {spread(self.read_ms, ' ms', 1)} per 24 h read, uncached; "
            f"{self.window_rows} rollup rows in the window ({self.window_sent:,} messages sent) "
            f"of {self.rollup_rows:,}; load {self.load_seconds:.0f} s, backfill "
            f"{self.backfill_seconds:.0f} s"
        )


def funnel_run(
    workflow: Any, *, load_seconds: float, backfill_seconds: float, repeat: int = FUNNEL_REPEAT
) -> FunnelRun:
    """Time `workflow`'s funnel of the 24 hours up to its last run. Imported and called only
    after django.setup()."""
    from datetime import timedelta

    from django.db import connection
    from django.db.models import Max

    from deliveries.funnel import COUNTED_SQL, workflow_funnel
    from deliveries.models import FunnelCount
    from triggers.models import TriggerInstance

    end = TriggerInstance.objects.filter(workflow=workflow).aggregate(end=Max("created_at"))["end"]
    if end is None:
        raise ValueError(f"workflow {workflow.key!r} has no run")
    since = end - timedelta(hours=24)
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        funnel = workflow_funnel(workflow=workflow, since=since, until=end)
        times.append(1000 * (time.perf_counter() - started))
    window = FunnelCount.objects.filter(
        workflow=workflow, hour__gte=funnel.since, hour__lt=funnel.until
    )
    rows = FunnelCount.objects.filter(workflow=workflow)
    params = {"workflow": workflow.pk, "start": funnel.since, "end": funnel.until, "tenant": None}
    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN (ANALYZE, BUFFERS) {COUNTED_SQL}", params)
        plan = "\n".join(row[0] for row in cursor.fetchall())
    return FunnelRun(
        load_seconds=load_seconds,
        backfill_seconds=backfill_seconds,
        rollup_rows=rows.count(),
        window_rows=window.count(),
        window_sent=sum(n.counts["sent"] for n in funnel.nodes),
        read_ms=times,
        plan=plan,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--workflow", required=True)
    parser.add_argument("--repeat", type=int, default=FUNNEL_REPEAT)
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "notiflow.settings")
    import django

    django.setup()
    from workflows.models import Workflow

    workflow = Workflow.objects.get(key=args.workflow)
    run = funnel_run(workflow, load_seconds=0, backfill_seconds=0, repeat=args.repeat)
    print(run)
    print(run.plan)


if __name__ == "__main__":
    main()


@dataclass(frozen=True)
class WritersRun:
    """Seconds to load the same runs, their steps, sends and reports without the rollup's
    triggers and through them; then the sweep of their step logs."""

    runs: int
    without_seconds: float
    with_seconds: float
    sweep: SweepRun | None = None

    def __str__(self) -> str:
        return (
            f"writers: {self.runs:,} runs with their steps, sends and reports loaded in "
            f"{self.without_seconds:.1f} s without the rollup's triggers, "
            f"{self.with_seconds:.1f} s through them" + (f"; {self.sweep}" if self.sweep else "")
        )

"""Retention's cost with the history's partitions (the step log's and the run events') dropped whole
against their rows deleted one by one (issue 51 §4; docs/reliability/index.md, "History by
partition"), at sizes a factor of ten apart, in one run.

For each size N and each way, a database of its own (a copy of one migrated here, its step log
and its events partitioned by day from 31 days ago to a week ahead, as a 30-day retention purged
daily keeps them) is loaded with N finished runs of the day 31 days ago, the one that has just
passed the cutoff, each with three step logs, three status events and a send ledger row, then
`manage.py purge_logs --older-than 30d` runs on it, as an operator's daily cron runs it:

- `drop`: the step logs carry their run's `created_at`, as the release writes them from version
  6 on, and the events land in their day's partition (triggers migration 0030): the purge
  deletes the runs and their ledger rows in batches, then drops the partitions;
- `rows`: the same step logs without it and the same events in the table from before (both
  tables' DEFAULT partitions, as before the upgrade): the batches delete them row by row with
  their runs, as every purge did before.

Printed per size: each way's seconds (the whole purge, as the command runs, its process's start
included), the step logs gone per second, the WAL the server wrote meanwhile (server-wide: run
it on a quiet server), the partitions dropped, and drop/rows. Alone:

    python -m bench.purge --runs 20000,200000
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import psycopg

from bench.loading import batches_load

ROOT = Path(__file__).resolve().parents[1]
# The loaded runs' day: the one a daily purge with a 30-day retention takes (its partitions end at
# the cutoff; every day before it went in the purges of the days before).
DAY = "date_trunc('day', now() - interval '31 days', 'UTC')"
# The runs' times: from noon of that day back (N x 10 ms: 33 minutes for 200,000 runs).
NOON = f"({DAY} + interval '12 hours')"
BATCH = 50_000
WAYS = ("rows", "drop")

LOAD_SQL = """
INSERT INTO trigger_instance
    (id, workflow_id, workflow_version_id, idempotency_key, payload, status, current_node_id,
     vars, attempts, available_at, leased_by, last_error, created_at, updated_at, completed_at)
SELECT md5('purge-' || i)::uuid, %(workflow)s, %(version)s, 'purge-' || i,
       jsonb_build_object('email', 'user' || i || '@example.com'), 'completed', NULL,
       '{}'::jsonb, 0, t, '', '', t, t + interval '2 seconds', t + interval '2 seconds'
FROM generate_series(%(first)s::int, %(last)s::int) AS i,
     LATERAL (SELECT {noon} - i * interval '10 milliseconds' AS t) AS r;

INSERT INTO trigger_event (trigger_id, from_status, to_status, reason, actor, created_at)
SELECT md5('purge-' || i)::uuid, s.from_status, s.to_status, 'bench', 'bench',
       {noon}
FROM generate_series(%(first)s::int, %(last)s::int) AS i
CROSS JOIN (VALUES ('', 'enqueued'), ('enqueued', 'processing'), ('processing', 'completed'))
    AS s(from_status, to_status);

INSERT INTO send_ledger
    (trigger_id, node_id, idempotency_key, channel, status, send_count, result, created_at,
     sent_at, provider, provider_message_id, providers)
SELECT md5('purge-' || i)::uuid, 'welcome', 'purge-' || i || ':welcome', 'email', 'sent', 1,
       '{}'::jsonb, {noon}, {noon}, 'ses',
       'purge-' || i, ARRAY['ses']
FROM generate_series(%(first)s::int, %(last)s::int) AS i;

INSERT INTO step_log (trigger_id, workflow_id, node_id, node_type, attempt, started_at,
                      finished_at, input, output, success, error, run_created_at)
SELECT md5('purge-' || i)::uuid, %(workflow)s, n.node_id, n.channel, 1, t, t,
       jsonb_build_object('payload', jsonb_build_object('email', 'user' || i || '@example.com')),
       jsonb_build_object('message_id', 'purge-' || i || '.' || n.node_id), true, '',
       CASE WHEN %(partitioned)s THEN t END
FROM generate_series(%(first)s::int, %(last)s::int) AS i,
     LATERAL (SELECT {noon} - i * interval '10 milliseconds' AS t) AS r
CROSS JOIN (VALUES ('welcome', 'email'), ('text', 'sms'), ('follow_up', 'email'))
    AS n(node_id, channel)
""".replace("{noon}", NOON)

# The migration partitions from the day it runs; the history here is older.
DAYS_SQL = """
DO $$
DECLARE
    r record;
BEGIN
    FOR r IN SELECT partition FROM notiflow_step_log_ranges_v1() LOOP
        EXECUTE format('DROP TABLE %I', r.partition);
    END LOOP;
END
$$;
CREATE TABLE step_log_before PARTITION OF step_log
    FOR VALUES FROM (MINVALUE) TO ({day});
SELECT notiflow_step_log_partition_setup_v1('step_log_before');
SELECT count(*) FROM notiflow_step_log_partitions_v1(now() + interval '8 days', 1);
""".replace("{day}", DAY)

# The `drop` way's events: trigger_event partitioned by day from that day too (the migration's
# first range partition starts two days after it ran; the `rows` way's events stay in the table
# from before, its DEFAULT partition, as before the upgrade).
EVENT_DAYS_SQL = """
DO $$
DECLARE
    r record;
BEGIN
    FOR r IN SELECT partition FROM notiflow_trigger_event_ranges_v1() LOOP
        EXECUTE format('DROP TABLE %I', r.partition);
    END LOOP;
END
$$;
SELECT notiflow_trigger_event_partition_v1(d, d + interval '1 day')
FROM (SELECT {day} AS d) AS first;
SELECT count(*) FROM notiflow_trigger_event_partitions_v1(now() + interval '8 days', 1);
""".replace("{day}", DAY)

WORKFLOW_SQL = """
WITH w AS (
    INSERT INTO workflows_workflow (key, name, description, active, created_at, updated_at, queue)
    VALUES ('purge-bench', 'purge bench', '', true, now(), now(), 'default') RETURNING id
)
INSERT INTO workflows_workflowversion (workflow_id, number, definition, created_at, created_by)
SELECT w.id, 1, '{}'::jsonb, now(), 'bench' FROM w RETURNING workflow_id, id
"""


@dataclass(frozen=True)
class PurgeRun:
    runs: int
    way: str
    step_logs: int
    load_seconds: float
    purge_seconds: float
    wal_bytes: int
    output: str

    @property
    def dropped(self) -> str:
        """The command's lines naming the partitions it dropped, if any."""
        lines = [line for line in self.output.splitlines() if " partitions dropped " in line]
        return "; ".join(lines) or "no partition dropped"

    @property
    def step_logs_per_second(self) -> float:
        return self.step_logs / self.purge_seconds if self.purge_seconds else 0.0

    def __str__(self) -> str:
        return (
            f"{self.way}: {self.runs:,} runs ({self.step_logs:,} step logs) purged in "
            f"{self.purge_seconds:.2f} s ({self.step_logs_per_second:,.0f} step logs/s), "
            f"{self.wal_bytes / 2**20:,.0f} MiB of WAL; loaded in {self.load_seconds:.0f} s; "
            f"{self.dropped}"
        )


def _server_url(url: str, name: str) -> str:
    return url.rsplit("/", 1)[0] + "/" + name


def _env(url: str) -> dict[str, str]:
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "notiflow.settings",
        "DJANGO_DEBUG": "1",
        "DATABASE_URL": url,
    }


def _manage(url: str, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, str(ROOT / "manage.py"), *args],
        env=_env(url),
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    )
    return done.stdout


@dataclass(frozen=True)
class Loaded:
    """A copy of the template holding `runs` finished runs, loaded the way `way` names."""

    url: str
    runs: int
    way: str
    step_logs: int
    seconds: float


def purge_template(server: str, template: str) -> None:
    """`template` partitioned by day from 31 days ago to a week ahead, as a 30-day retention keeps
    it (it must exist, migrated)."""
    with psycopg.connect(_server_url(server, template), autocommit=True) as conn:
        conn.execute(DAYS_SQL)


def purge_load(server: str, template: str, name: str, *, runs: int, way: str) -> Loaded:
    """Database `name`, a copy of `template`, loaded with `runs` finished runs of the day 31 days
    ago."""
    with psycopg.connect(_server_url(server, "postgres"), autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template}"')
    url = _server_url(server, name)
    started = time.monotonic()
    with psycopg.connect(url, autocommit=True) as conn:
        if way == "drop":
            conn.execute(EVENT_DAYS_SQL)
        workflow, version = conn.execute(WORKFLOW_SQL).fetchone() or (0, 0)
        batches_load(
            conn,
            LOAD_SQL,
            count=runs,
            batch=BATCH,
            workflow=workflow,
            version=version,
            partitioned=way == "drop",
        )
        for table in ("trigger_instance", "trigger_event", "send_ledger", "step_log"):
            conn.execute(f"VACUUM ANALYZE {table}")
        (step_logs,) = conn.execute("SELECT count(*) FROM step_log").fetchone() or (0,)
    return Loaded(url, runs, way, int(step_logs), time.monotonic() - started)


def purge_command(loaded: Loaded) -> tuple[list[str], dict[str, str]]:
    """`manage.py purge_logs` as an operator's cron runs it, and its environment."""
    argv = [str(ROOT / "manage.py"), "purge_logs", "--older-than", "30d", "--batch-size", "1000"]
    return [sys.executable, *argv], _env(loaded.url)


def purge_checked(loaded: Loaded) -> None:
    """Raise unless the purge took every step log and every run event."""
    with psycopg.connect(loaded.url, autocommit=True) as conn:
        for table in ("step_log", "trigger_event"):
            left = conn.execute(f"SELECT count(*) FROM {table}").fetchone()  # noqa: S608 (names above)
            if left != (0,):
                raise RuntimeError(
                    f"{loaded.way}: {left[0] if left else '?'} rows of {table} left after the purge"
                )


def database_drop(server: str, name: str) -> None:
    with psycopg.connect(_server_url(server, "postgres"), autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def purge_run(server: str, template: str, *, runs: int, way: str) -> PurgeRun:
    """Load `runs` runs into a copy of `template` and time purge_logs on it, alone."""
    name = f"{template}_{way}"
    try:
        loaded = purge_load(server, template, name, runs=runs, way=way)
        with psycopg.connect(loaded.url, autocommit=True) as conn:
            conn.execute("CHECKPOINT")  # the load's WAL written out, its full pages counted before
            (wal_before,) = conn.execute("SELECT pg_current_wal_lsn()").fetchone() or ("0/0",)
        argv, env = purge_command(loaded)
        started = time.monotonic()
        done = subprocess.run(argv, env=env, cwd=ROOT, check=True, capture_output=True, text=True)
        purge = time.monotonic() - started
        with psycopg.connect(loaded.url, autocommit=True) as conn:
            (wal,) = conn.execute(
                "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), %s)", [wal_before]
            ).fetchone() or (0,)
        purge_checked(loaded)
        return PurgeRun(runs, way, loaded.step_logs, loaded.seconds, purge, int(wal), done.stdout)
    finally:
        database_drop(server, name)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", default="20000,200000", help="sizes, comma-separated")
    parser.add_argument(
        "--database-url",
        default=os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/notiflow"),
        help="the server (its database part is ignored)",
    )
    args = parser.parse_args()
    sizes = [int(size) for size in args.runs.split(",")]
    template = "nf_purge_bench"
    with psycopg.connect(_server_url(args.database_url, "postgres"), autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{template}" WITH (FORCE)')
        admin.execute(f'CREATE DATABASE "{template}"')
    try:
        _manage(_server_url(args.database_url, template), "migrate", "-v0")
        purge_template(args.database_url, template)
        for runs in sizes:
            results = {
                way: purge_run(args.database_url, template, runs=runs, way=way) for way in WAYS
            }
            for result in results.values():
                print(result, flush=True)
            print(
                f"  {runs:,} runs: drop/rows {results['rows'].purge_seconds / results['drop'].purge_seconds:.2f}"
                " (the rows way's seconds over the drop way's)",
                flush=True,
            )
    finally:
        database_drop(args.database_url, template)


if __name__ == "__main__":
    main()

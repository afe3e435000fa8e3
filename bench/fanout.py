"""Figure: a topic fanned out (issue 33) against bulk intake of as many triggers, in one run.

Each side runs in a child process of its own, as a worker runs a task, on the `sql` copy where
no worker runs (so nothing executes the runs, and both sides pay the same nudge publishing to
the broker, which is flushed afterwards):

- fan-out: `fanout_start` for a topic of N subscribers, then `fanout_chunk` at the fan-out's
  cursor until it is done: exactly the chunk task's body (`workers.fanout_chunk`), one chunk of
  NOTIFLOW_FANOUT_CHUNK_SIZE runs per call, each its own transaction;
- baseline: `triggers_create` of N requests with a recipient each, NOTIFLOW_BULK_MAX at a time
  (what POST /api/triggers/bulk/ does for them, without HTTP).

The rate is runs created per second, and the CPU per run created (the child's, its PostgreSQL
backend's and redis-server's, from /proc), which the machine's other load disturbs less; the
child's max RSS is measured for a small and a large
audience, to show that a worker's memory does not grow with the audience (a chunk at a time).
`python -m bench.fanout <side> <workflow key> <topic key> <count>` is the child.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass

from bench.cpu import cpu_seconds
from bench.intake import PAYLOAD


@dataclass(frozen=True)
class FanoutRun:
    side: str  # "fanout" or "bulk"
    audience: int
    created: int
    seconds: float
    max_rss_mb: float
    # CPU seconds of the child, of its PostgreSQL backend and of redis-server (the nudges) while
    # it ran: less noisy than the rate on a shared machine.
    cpu_seconds: float = 0.0
    # Of which its PostgreSQL backend's; and the WAL the server wrote meanwhile (server-wide: the
    # `sql` copy's server runs nothing else of the bench's then). What the capacity model reads
    # (docs/performance/capacity.md).
    database_cpu_seconds: float = 0.0
    wal_bytes: int = 0

    @property
    def cpu_ms_per_run(self) -> float:
        return 1000 * self.cpu_seconds / self.created if self.created else 0.0

    @property
    def database_cpu_ms_per_run(self) -> float:
        return 1000 * self.database_cpu_seconds / self.created if self.created else 0.0

    @property
    def wal_bytes_per_run(self) -> float:
        return self.wal_bytes / self.created if self.created else 0.0

    @property
    def per_second(self) -> float:
        return self.created / self.seconds if self.seconds > 0 else 0.0

    def __str__(self) -> str:
        return (
            f"{self.side}: {self.created:,} runs of {self.audience:,} in {self.seconds:.1f}s "
            f"= {self.per_second:,.0f}/s, {self.cpu_ms_per_run:.3f} CPU ms a run "
            f"(process, its database backend, Redis; the backend {self.database_cpu_ms_per_run:.3f}), "
            f"WAL {self.wal_bytes_per_run:,.0f} bytes a run, max RSS {self.max_rss_mb:.0f} MB"
        )


def audience_load(url: str, *, topic_key: str, size: int) -> None:
    """A topic and `size` recipients subscribed to it, by SQL (seconds, not the figure)."""
    import psycopg

    prefix = f"{topic_key}-u"
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(
            "INSERT INTO recipient_topic (key, name, description) VALUES (%s, '', '')",
            [topic_key],
        )
        conn.execute(
            "INSERT INTO recipient (key, channels, properties, preferences) "
            "SELECT %s || i, '{}', '{}', '{}' FROM generate_series(1, %s) AS i",
            [prefix, size],
        )
        conn.execute(
            "INSERT INTO recipient_topic_subscription (topic_id, recipient_id) "
            "SELECT %s, %s || i FROM generate_series(1, %s) AS i ORDER BY i",
            [topic_key, prefix, size],
        )
        conn.execute("ANALYZE recipient_topic_subscription")


def child_run(env: dict[str, str], side: str, workflow_key: str, topic_key: str, count: int):  # type: ignore[no-untyped-def]
    """Run one side in a fresh process; its FanoutRun."""
    argv = [sys.executable, "-m", "bench.fanout", side, workflow_key, topic_key, str(count)]
    done = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"bench.fanout {side} failed:\n{done.stderr[-3000:]}")
    return FanoutRun(**json.loads(done.stdout.strip().splitlines()[-1]))


def _fanout_side(workflow_key: str, topic_key: str) -> int:
    from recipients.models import Fanout
    from triggers.fanout import FanoutRequest, fanout_chunk, fanout_start

    request = FanoutRequest(workflow_key, f"bench-{uuid.uuid4().hex[:8]}", topic_key, PAYLOAD)
    fanout, _ = fanout_start(request, actor="bench")
    while Fanout.objects.filter(pk=fanout.pk, status="running").exists():
        fanout_chunk(fanout_id=fanout.pk, worker_id="bench")
    return Fanout.objects.get(pk=fanout.pk).created


def _bulk_side(workflow_key: str, topic_key: str, count: int) -> int:
    from django.conf import settings

    from triggers.services import TriggerRequest, triggers_create

    prefix = f"bulk-{uuid.uuid4().hex[:8]}"
    created = 0
    batch = settings.NOTIFLOW_BULK_MAX
    for start in range(0, count, batch):
        requests = [
            TriggerRequest(
                workflow_key, f"{prefix}-{i}", PAYLOAD, recipient=f"{topic_key}-u{i + 1}"
            )
            for i in range(start, min(count, start + batch))
        ]
        outcomes = triggers_create(requests, actor="bench")
        created += sum(1 for outcome in outcomes if isinstance(outcome, tuple) and outcome[1])
    return created


def main(argv: list[str]) -> None:
    import django

    django.setup()
    from django.conf import settings
    from django.db import connection

    side, workflow_key, topic_key, count = argv[0], argv[1], argv[2], int(argv[3])
    connection.ensure_connection()
    backend = connection.connection.info.backend_pid
    pids = [os.getpid(), backend, *_redis_pid(settings.CELERY_BROKER_URL)]
    cpu_before = sum(cpu_seconds(pid) for pid in pids)
    database_before, wal_before = cpu_seconds(backend), _wal_position(connection)
    started = time.perf_counter()
    if side == "fanout":
        created = _fanout_side(workflow_key, topic_key)
    elif side == "schedule":
        from bench.schedules import schedule_side

        created = schedule_side(workflow_key, topic_key)
    else:
        created = _bulk_side(workflow_key, topic_key, count)
    seconds = time.perf_counter() - started
    cpu = sum(cpu_seconds(pid) for pid in pids) - cpu_before
    database = cpu_seconds(backend) - database_before
    wal = _wal_position(connection) - wal_before
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    run = {"side": side, "audience": count, "created": created, "seconds": seconds}
    measured = {"cpu_seconds": cpu, "database_cpu_seconds": database, "wal_bytes": wal}
    print(json.dumps({**run, "max_rss_mb": rss_mb, **measured}))


def _wal_position(connection) -> int:  # type: ignore[no-untyped-def]
    """The server's WAL insert position, in bytes."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '0/0')::bigint")
        return int(cursor.fetchone()[0])


def _redis_pid(url: str) -> list[int]:
    """redis-server's pid when it runs here (the broker the nudges go to), else none."""
    import redis

    pid = int(redis.Redis.from_url(url).info("server").get("process_id", 0))
    return [pid] if pid and os.path.exists(f"/proc/{pid}") else []


if __name__ == "__main__":
    main(sys.argv[1:])

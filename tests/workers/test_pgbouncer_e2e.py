"""Workers across hosts through one PgBouncer in transaction mode (docs/guide/pgbouncer.md): three
"hosts" of eight pool processes each keep a client connection apiece, yet PostgreSQL sees no
more server connections than PgBouncer's pool size, and every run completes. Real Celery
workers, PgBouncer (tests/support/pgbouncer.py), PostgreSQL, Redis and SMTP."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
from django.conf import settings

from tests.conftest import pgbouncer_start, sms_outbox, unique
from tests.factories import WorkflowFactory, chain, email_node, sms_node
from tests.registry.test_registry_e2e import HOST, live_worker
from tests.support.pgbouncer import PgBouncer
from tests.support.stack import wait_for
from triggers.models import TERMINAL_STATUSES, TriggerInstance

pytestmark = pytest.mark.e2e

HOSTS = 3
PROCESSES = 8
POOL_SIZE = 10
TRIGGERS = 300


class PoolSampler(threading.Thread):
    """SHOW POOLS for one database every 50 ms, keeping the largest counts seen."""

    def __init__(self, bouncer: PgBouncer, database: str):
        super().__init__(daemon=True)
        self.bouncer, self.database = bouncer, database
        self.most = {"clients": 0, "servers": 0, "waiting": 0}
        self.samples = 0
        self.stopping = threading.Event()

    def run(self) -> None:
        while not self.stopping.wait(0.05):
            pool = self.bouncer.pool(self.database)
            self.samples += 1
            for name, count in pool.items():
                self.most[name] = max(self.most[name], count)


def test_three_hosts_of_eight_processes_stay_within_the_pools_server_connections(
    e2e: Any, api: Any
) -> None:
    database = settings.DATABASES["default"]["NAME"]
    bouncer = pgbouncer_start(default_pool_size=POOL_SIZE)
    queue = unique("pooled")
    workflow = WorkflowFactory(
        key=f"{queue}.notice", definition=chain(email_node("mail"), sms_node("text"))
    )
    names = [f"{queue}-{host}" for host in range(HOSTS)]
    workers = [
        e2e.worker(
            name,
            concurrency=PROCESSES,
            queues=[queue],
            extra_env={"DATABASE_URL": bouncer.url(database)},
        )
        for name in names
    ]
    sampler = PoolSampler(bouncer, database)
    try:
        for name in names:
            live_worker(api, f"{name}@{HOST}")
        sampler.start()
        items = [
            {
                "workflow": workflow.key,
                "idempotency_key": unique("k"),
                "payload": {"email": f"p{i}@example.com", "name": f"P{i}", "phone": "+15550100"},
            }
            for i in range(TRIGGERS)
        ]
        fired = time.monotonic()
        response = api.post("/api/triggers/bulk/", {"triggers": items})
        assert response.status_code == 200, response.text

        runs = TriggerInstance.objects.filter(workflow=workflow)
        wait_for(
            lambda: (
                runs.count() == TRIGGERS and not runs.exclude(status__in=TERMINAL_STATUSES).exists()
            ),
            timeout=60,
            interval=0.2,
            message=f"{TRIGGERS} runs to finish",
        )
        finished = time.monotonic() - fired
    finally:
        sampler.stopping.set()
        sampler.join(timeout=5)
        for process in workers:
            process.stop()
        bouncer.stop()

    assert set(runs.values_list("status", flat=True)) == {"completed"}
    texts = {m["idempotency_key"] for m in sms_outbox(e2e)}
    assert all(f"{run.pk}:text" in texts for run in runs)
    print(f"{TRIGGERS} runs in {finished:.1f}s; pool, most seen in {sampler.samples} samples:")
    print(f"  {sampler.most} (clients, servers, clients waiting for a server)")
    # Every pool process held a client connection at once ...
    assert sampler.most["clients"] >= HOSTS * PROCESSES, sampler.most
    # ... and PostgreSQL saw no more server connections than the pool has.
    assert 1 <= sampler.most["servers"] <= POOL_SIZE, sampler.most
    for process in workers:
        assert "in transaction mode at 127.0.0.1:" in process.log()
        assert "prepared statements off" in process.log()

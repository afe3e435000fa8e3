"""Indexed matching (docs/design/waits.md, "Waiting for events"): with many runs waiting for the same
event name, an event resumes its one run by an index lookup, in under 50 ms of database time.
The rows are inserted with SQL; 10,000 waiting runs by default, 100,000 under `slow`."""

from __future__ import annotations

import json

import pytest
from django.db import connection

from tests.waits.test_wait_event import parked
from triggers.models import TriggerInstance
from waits import sql
from waits.services import event_hashes

pytestmark = [pytest.mark.django_db]

# As many waiting runs (at the same workflow and node as `parked()`'s), each waiting for its own
# order id, with their waits; match_hash is waits.services.match_hash written in SQL.
WAITING_RUNS_SQL = """
WITH runs AS (
    INSERT INTO trigger_instance (id, workflow_id, workflow_version_id, idempotency_key,
        request_hash, cancellation_key, payload, recipient, status, current_node_id, vars,
        priority, attempts, available_at, leased_by, last_error, created_by, created_at,
        updated_at, delete_reason)
    SELECT gen_random_uuid(), t.workflow_id, t.workflow_version_id, 'scale-' || n, '', '',
        jsonb_build_object('order_id', 'scale-' || n), '', 'waiting', 'paid', '{}', 5, 0,
        now() + interval '1 hour', '', '', 'test', now(), now(), ''
    FROM generate_series(1, %(count)s) n, trigger_instance t WHERE t.id = %(model)s
    RETURNING id, workflow_id, payload ->> 'order_id' AS order_id
)
INSERT INTO event_wait (trigger_id, node_id, workflow_id, name, match, match_hash, deadline,
    created_at, received, timed_out, resolved_by)
SELECT id, 'paid', workflow_id, 'order.paid', jsonb_build_object('order_id', order_id),
    encode(sha256(convert_to('["order.paid",[["order_id","' || order_id || '"]]]', 'UTF8')),
           'hex'),
    now() + interval '1 hour', now(), false, false, ''
FROM runs
"""


@pytest.mark.parametrize(
    "count", [10_000, pytest.param(100_000, marks=pytest.mark.slow, id="100000")]
)
def test_one_event_among_many_waiting_runs_resumes_its_run_by_index(count):
    model = parked()
    with connection.cursor() as cursor:
        cursor.execute(WAITING_RUNS_SQL, {"count": count, "model": model.pk})
        cursor.execute("ANALYZE event_wait")
        cursor.execute("ANALYZE trigger_instance")
        target = f"scale-{count // 2}"
        data = {"order_id": target}
        hashes = event_hashes("order.paid", data, [["order_id"]])
        params = {
            "name": "order.paid",
            "event_id": "scale",
            "hashes": hashes,
            "workflows": None,
            "event": json.dumps({"id": "scale", "name": "order.paid", "data": data}),
            "actor": "test",
            "trace_context": "",
        }
        cursor.execute("EXPLAIN (ANALYZE, FORMAT JSON) " + sql.RESUME_SQL, params)
        (plan,) = cursor.fetchone()
    plan = plan if isinstance(plan, list) else json.loads(plan)
    database_ms = plan[0]["Planning Time"] + plan[0]["Execution Time"]
    assert database_ms < 50, f"{database_ms:.1f} ms"
    assert "event_wait_open_idx" in json.dumps(plan)
    resumed = TriggerInstance.objects.filter(payload__order_id=target)
    assert [t.status for t in resumed] == ["enqueued"]
    assert TriggerInstance.objects.filter(status="waiting").count() == count  # +1 parked, -1
    print(f"{count} waiting runs: resumed one in {database_ms:.2f} ms of database time")

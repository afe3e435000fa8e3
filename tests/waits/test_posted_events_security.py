"""Who may resume a run with a posted event (docs/security/findings.md, "Posted events", issue 43 §4): the
names the service posts itself are refused from clients; an event posted by a key limited to
workflows resumes only their runs, now or by a later wait's look-back; the poster is recorded
and shown; and a look-back reads a bounded range whatever the events of its name."""

from __future__ import annotations

import json
import time
import uuid
from datetime import timedelta

import pytest
from django.db import connection
from django.urls import reverse
from django.utils import timezone

from tests.waits.test_events_api import client_for
from tests.waits.test_wait_event import PAYLOAD, definition, parked, step
from tests.workers.helpers import due_trigger
from triggers.models import ApiKey
from waits import sql
from waits.models import EventWait, ReceivedEvent
from waits.services import LOOKBACK_READ_MAX, wait_register

pytestmark = [pytest.mark.django_db]


@pytest.mark.parametrize(
    "name", ["message.opened", "message.anything", "trigger.completed", "ping"]
)
def test_a_name_the_service_posts_is_refused_from_clients_naming_name(name):
    client = client_for()
    body = {"name": name, "id": "forged", "data": {"trigger_id": str(uuid.uuid4())}}
    response = client.post("/api/events/", body, format="json")
    assert response.status_code == 400, response.content
    assert "reserved" in response.json()["errors"]["name"][0]
    bulk = client.post("/api/events/bulk/", {"events": [body]}, format="json")
    assert bulk.json()["results"][0]["status"] == 400
    assert "name" in bulk.json()["results"][0]["errors"]
    assert not ReceivedEvent.objects.filter(event_id="forged").exists()


def test_the_admins_form_refuses_a_reserved_name_too(admin_client):
    url = reverse("admin:waits_receivedevent_add")
    answer = admin_client.post(url, {"name": "message.clicked", "event_id": "f", "data": "{}"})
    assert answer.status_code == 200 and b"reserved" in answer.content
    assert not ReceivedEvent.objects.filter(event_id="f").exists()


def test_a_lookback_takes_no_event_posted_by_a_key_limited_to_other_workflows():
    body = {"name": "order.paid", "id": "early", "data": {"order_id": "o-1"}}
    elsewhere = client_for(workflows=["someone-else"])
    assert elsewhere.post("/api/events/", body, format="json").status_code == 201

    trigger = parked(lookback="1h")  # reaches its node after the event: still waiting

    assert EventWait.objects.get(trigger_id=trigger.pk).resolved_at is None


def test_a_lookback_takes_an_event_posted_by_a_key_of_the_runs_workflow():
    run = due_trigger(definition(lookback="1h"), payload=PAYLOAD)
    allowed = client_for(workflows=[run.workflow.key])
    body = {"name": "order.paid", "id": "early", "data": {"order_id": "o-1"}}
    assert allowed.post("/api/events/", body, format="json").status_code == 201

    run = step(run)

    assert run.status == "enqueued" and run.vars["paid"]["received"] is True
    assert EventWait.objects.get(trigger_id=run.pk).resolved_by == "lookback"


def test_the_poster_is_recorded_and_shown_in_the_admin(admin_client):
    client = client_for(workflows=["wfa", "wfb"])
    body = {"name": "order.paid", "id": "shown", "data": {"order_id": "o-9"}}
    assert client.post("/api/events/", body, format="json").status_code == 201
    event = ReceivedEvent.objects.get(event_id="shown")
    key = ApiKey.objects.get(pk=event.api_key_id)
    assert (event.created_by, event.workflows) == (f"api:{key.name}", ["wfa", "wfb"])

    page = admin_client.get(reverse("admin:waits_receivedevent_change", args=[event.pk]))
    listing = admin_client.get(reverse("admin:waits_receivedevent_changelist"))

    key_url = reverse("admin:triggers_apikey_change", args=[key.pk])
    assert key_url in page.content.decode() and "wfa, wfb" in page.content.decode()
    assert key_url in listing.content.decode()


# Events of one name, none matching, newest last: what made each registration read them all.
JUNK_SQL = """
INSERT INTO received_event (event_id, name, data, data_hash, created_by, created_at)
SELECT 'junk-' || n, 'order.paid', jsonb_build_object('order_id', 'junk-' || n), '', 'api:junk',
       now() - interval '10 minutes' + n * interval '1 millisecond'
FROM generate_series(1, %(count)s) n
"""


# Twenty times the read cap in `make test-fast`; the 300,000 of the report (seconds to insert)
# in `make test`.
@pytest.mark.parametrize("junk_events", [20_000, pytest.param(300_000, marks=pytest.mark.slow)])
def test_a_lookback_reads_a_bounded_index_range_whatever_the_events_of_its_name(junk_events):
    assert junk_events >= 20 * LOOKBACK_READ_MAX
    workflow_id = due_trigger(definition()).workflow_id
    with connection.cursor() as cursor:
        cursor.execute(JUNK_SQL, {"count": junk_events})
        cursor.execute("ANALYZE received_event")

    def register(node_id: str) -> float:
        started = time.perf_counter()
        state = wait_register(
            trigger_id=str(uuid.uuid4()),
            node_id=node_id,
            workflow_id=workflow_id,
            name="order.paid",
            match={"order_id": "o-1"},
            deadline=timezone.now() + timedelta(hours=1),
            lookback=timedelta(hours=1),
        )
        assert not state.resolved
        return time.perf_counter() - started

    register("warm")
    fastest = min(register(f"n{i}") for i in range(3))
    # ~30 ms measured on a loaded 2-core machine (4,140 ms before the cap); the bound that does
    # not depend on the machine is the plan's, below.
    assert fastest < 0.15, f"a registration and its look-back took {fastest * 1000:.0f} ms"

    wait = EventWait.objects.get(node_id="n0")
    with connection.cursor() as cursor:
        cursor.execute(
            "EXPLAIN (ANALYZE, FORMAT JSON) " + sql.WAIT_LOOKBACK_SQL,
            {
                "trigger_id": wait.trigger_id,
                "node_id": "n0",
                **sql.RECORDED_PARAMS,
                "lookback": 3600,
                "read_max": LOOKBACK_READ_MAX,
            },
        )
        plan = cursor.fetchone()[0]
    scans = [node for node in _nodes(plan if isinstance(plan, list) else json.loads(plan))]
    events = [node for node in scans if node.get("Relation Name") == "received_event"]
    assert [node["Node Type"] for node in events] == ["Index Scan"], events
    assert events[0]["Index Name"] == "received_event_name_idx"
    assert events[0]["Actual Rows"] <= LOOKBACK_READ_MAX


def _nodes(plan):
    """Every node of an EXPLAIN (FORMAT JSON) plan."""
    stack = [entry["Plan"] for entry in plan]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(node.get("Plans", []))

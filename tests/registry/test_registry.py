"""The worker registry: registration is an upsert by name, a heartbeat keeps a worker live, a stop
ends it, and live means not stopped and seen within three heartbeats, the same for the ORM's
readers and for intake's statement."""

from __future__ import annotations

import pytest
from django.db import connection
from django.urls import reverse
from rest_framework.test import APIClient

from registry.models import Worker
from registry.selectors import live_workers_by_queue, queue_unserved_list, worker_list
from registry.services import worker_heartbeat, worker_stop
from registry.sql import QUEUE_SERVED_FUNCTION, live_within_seconds
from tests.factories import WorkflowFactory, chain, delay_node
from tests.registry.support import registered, seen_ago

pytestmark = pytest.mark.django_db


def test_registering_again_under_a_name_overwrites_the_row_and_revives_it():
    first = registered("a@h", queues=("default",), pid=1, version="1.0")
    worker_stop(name="a@h")
    again = registered("a@h", queues=("billing", "default", "billing"), pid=2, version="1.1")

    assert Worker.objects.count() == 1 and again.pk == first.pk
    assert (again.pid, again.version, again.stopped_at) == (2, "1.1", None)
    assert again.queues == ["billing", "default"]  # sorted, once each
    assert again.started_at == again.last_seen_at  # both the database's now()
    assert again.providers == {"email": "smtp", "sms": "twilio"}


def test_a_heartbeat_refreshes_last_seen_and_may_update_the_queues():
    worker = registered("a@h", queues=("default",))
    seen_ago(worker, 20)
    assert worker_heartbeat(name="a@h", queues=["default", "extra"]) is True
    worker.refresh_from_db()
    assert worker.queues == ["default", "extra"]
    assert worker_list().get(pk=worker.pk).live is True


def test_a_heartbeat_for_a_stopped_or_unknown_worker_says_so():
    registered("a@h")
    worker_stop(name="a@h")
    assert worker_heartbeat(name="a@h") is False
    assert worker_heartbeat(name="nobody@h") is False
    assert Worker.objects.get(name="a@h").stopped_at is not None  # a beat does not revive it


def test_stopping_marks_the_row_once():
    registered("a@h")
    assert worker_stop(name="a@h") is True
    assert worker_stop(name="a@h") is False
    assert worker_list().get(name="a@h").live is False


@pytest.mark.parametrize(
    ("seconds_ago", "stopped", "live"),
    [(0, False, True), (29, False, True), (31, False, False), (0, True, False)],
)
def test_live_means_not_stopped_and_seen_within_three_heartbeats(seconds_ago, stopped, live):
    assert live_within_seconds() == 30  # 3 x NOTIFLOW_WORKER_HEARTBEAT_SECONDS [10]
    worker = registered("a@h", queues=("q1",))
    seen_ago(worker, seconds_ago)
    if stopped:
        worker_stop(name="a@h")
        seen_ago(worker, seconds_ago)
    # The ORM's readers ...
    assert worker_list().get(pk=worker.pk).live is live
    assert live_workers_by_queue() == ({"q1": 1} if live else {})
    # ... and intake's statement agree.
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT served FROM {QUEUE_SERVED_FUNCTION}(%(queue)s, %(live_within)s)",  # noqa: S608
            {"queue": "q1", "live_within": live_within_seconds()},
        )
        assert cursor.fetchone()[0] is live


def test_live_workers_are_counted_per_queue_and_unserved_queues_are_named():
    registered("a@h", queues=("default",))
    registered("b@h", queues=("billing", "default"))
    seen_ago(registered("c@h", queues=("reports",)), 60)
    WorkflowFactory(key="billing.invoice_due.v1", definition=chain(delay_node()))
    WorkflowFactory(key="reports.daily", definition=chain(delay_node()))
    WorkflowFactory(key="audit.weekly", definition=chain(delay_node()), active=False)

    assert live_workers_by_queue() == {"billing": 1, "default": 2}
    assert queue_unserved_list() == ["reports"]  # not audit: its workflow is inactive
    assert [w.name for w in worker_list()] == ["a@h", "b@h", "c@h"]
    assert [w.name for w in worker_list(live=False)] == ["c@h"]


def test_the_workers_api_lists_every_field_live_ones_first(api_client):
    seen_ago(registered("a@h", queues=("default",)), 60)
    registered("b@h", queues=("billing",), pid=7, concurrency=3)

    response = api_client.get("/api/workers/")
    assert response.status_code == 200
    body = response.json()
    assert body["count"] == 2
    first, second = body["results"]
    assert set(first) == {
        "name",
        "host",
        "pid",
        "queues",
        "concurrency",
        "node_types",
        "providers",
        "version",
        "started_at",
        "last_seen_at",
        "stopped_at",
        "live",
    }
    assert (first["name"], first["live"], first["queues"], first["pid"]) == (
        "b@h",
        True,
        ["billing"],
        7,
    )
    assert first["concurrency"] == 3 and first["node_types"] == ["delay", "email", "sms"]
    assert (second["name"], second["live"]) == ("a@h", False)

    live = api_client.get("/api/workers/?live=true").json()["results"]
    assert [w["name"] for w in live] == ["b@h"]
    assert api_client.get("/api/workers/?live=maybe").status_code == 400


def test_the_workers_api_needs_an_api_key():
    assert APIClient().get("/api/workers/").status_code == 401


def test_the_schema_describes_the_workers_list():
    schema = APIClient().get("/api/schema/?format=json").json()
    operation = schema["paths"]["/api/workers/"]["get"]
    page = operation["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
    assert page.endswith("PaginatedWorkerList")
    worker = schema["components"]["schemas"]["Worker"]
    assert {"live", "queues", "node_types", "providers", "stopped_at"} <= set(worker["properties"])


def test_the_admin_shows_workers_and_changes_nothing(admin_client):
    registered("a@h", queues=("billing", "default"))
    page = admin_client.get(reverse("admin:registry_worker_changelist"))
    assert page.status_code == 200
    assert "a@h" in page.content.decode() and "billing, default" in page.content.decode()
    worker = Worker.objects.get(name="a@h")
    detail = admin_client.get(reverse("admin:registry_worker_change", args=[worker.pk]))
    assert detail.status_code == 200 and b'name="_save"' not in detail.content
    assert admin_client.get(reverse("admin:registry_worker_add")).status_code == 403

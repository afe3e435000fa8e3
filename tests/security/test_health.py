"""GET /api/health/ has two faces (docs/security/deployment.md, "The health endpoint").

Without a key: `{"status": "ok" | "degraded" | "down"}` and nothing else, computed at most once
per NOTIFLOW_HEALTH_CACHE_SECONDS per process, with no broadcast ping. With an API key: the
details, fresh, where a failure is a short category and never the error's own text, and the
workers are the registry's live ones per queue (no broadcast ping either).
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

import pytest
from celery import current_app
from celery.app.control import Control
from django.db import OperationalError, connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from rest_framework.test import APIClient

from tests.factories import WorkflowFactory, chain, delay_node
from tests.registry.support import registered
from tests.support.smtp import free_port
from tests.workers.helpers import due_trigger
from triggers.models import TriggerInstance
from workers import api as health
from workers.services.history import partitions_ensure
from workflows.models import Workflow

pytestmark = pytest.mark.django_db

# What psycopg says when the web role's password is wrong: host, port and role in one line.
DB_ERROR = (
    'connection to server at "10.9.8.7", port 6543 failed: FATAL:  password authentication '
    'failed for user "notiflow_web"'
)
DB_SECRETS = ("10.9.8.7", "6543", "notiflow_web", "FATAL")


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(autouse=True)
def _public_answer_computed_afresh():
    """Every test here starts from an empty public-answer cache: a test elsewhere in the same
    process (a dead broker, say) may have left "down" in it for NOTIFLOW_HEALTH_CACHE_SECONDS."""
    health.PUBLIC_HEALTH.clear()
    yield
    health.PUBLIC_HEALTH.clear()


@pytest.fixture
def clock(monkeypatch) -> Clock:
    """The public answer's cache, emptied, on a clock the test moves."""
    fake = Clock()
    monkeypatch.setattr(health.PUBLIC_HEALTH, "clock", fake)
    health.PUBLIC_HEALTH.clear()
    yield fake
    health.PUBLIC_HEALTH.clear()


@pytest.fixture
def pings(monkeypatch) -> list[float]:
    """Every broadcast ping (none is expected), answered by one worker."""
    sent: list[float] = []

    def ping(self, timeout: float = 1.0, **kwargs):
        sent.append(timeout)
        return [{"w1@host": {"ok": "pong"}}]

    monkeypatch.setattr(Control, "ping", ping)
    return sent


@pytest.fixture
def broker_connections(monkeypatch) -> list[int]:
    """Every broker connection the health check opens."""
    opened: list[int] = []
    app = current_app._get_current_object()
    real = app.connection_for_write

    def counted(*args, **kwargs):
        opened.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(app, "connection_for_write", counted)
    return opened


def public() -> tuple[int, dict]:
    response = APIClient().get("/api/health/")
    return response.status_code, response.json()


def test_without_a_key_health_names_no_check_and_sends_no_ping(pings, broker_connections):
    answers = [public() for _ in range(50)]
    assert {code for code, _ in answers} == {200}
    assert all(body.keys() == {"status"} for _, body in answers), answers[0]
    # At most one computation (two if the 50 calls straddle the end of a cache period).
    assert pings == [] and len(broker_connections) <= 2


def test_the_public_answer_is_the_status_alone(clock, pings):
    code, body = public()
    assert (code, body) == (200, {"status": "ok"})
    assert pings == []


def test_fifty_public_calls_cost_one_check_per_cache_period(clock, pings, broker_connections):
    with CaptureQueriesContext(connection) as queries:
        answers = [public() for _ in range(50)]
    assert answers == [(200, {"status": "ok"})] * 50
    assert len(queries) == 1 and len(broker_connections) == 1 and pings == []

    clock.now += 4.9
    public()
    assert len(broker_connections) == 1
    clock.now += 0.2  # past NOTIFLOW_HEALTH_CACHE_SECONDS [5] since the first check
    with CaptureQueriesContext(connection) as queries:
        public()
        public()
    assert len(queries) == 1 and len(broker_connections) == 2 and pings == []


def test_work_waiting_past_the_limit_makes_it_degraded_not_down(clock, settings):
    trigger = due_trigger()
    waited = timedelta(seconds=settings.NOTIFLOW_HEALTH_MAX_LAG_SECONDS + 5)
    TriggerInstance.objects.filter(pk=trigger.pk).update(available_at=timezone.now() - waited)
    assert public() == (200, {"status": "degraded"})


def test_an_expired_lease_left_alone_makes_it_degraded(clock, settings):
    trigger = due_trigger()
    expired = timezone.now() - timedelta(seconds=settings.NOTIFLOW_HEALTH_MAX_LAG_SECONDS + 5)
    TriggerInstance.objects.filter(pk=trigger.pk).update(
        status="processing", lease_until=expired, leased_by="gone:1/x"
    )
    assert public() == (200, {"status": "degraded"})


def test_work_due_moments_ago_is_still_ok(clock):
    due_trigger()  # due a second ago: a worker is about to take it
    assert public() == (200, {"status": "ok"})


@pytest.fixture
def database_fails(monkeypatch) -> None:
    def refuse(**kwargs):
        raise OperationalError(DB_ERROR)

    monkeypatch.setattr(health, "trigger_oldest_waiting", refuse)


def test_a_database_error_is_down_and_its_text_is_in_neither_answer(
    clock, pings, database_fails, api_client, caplog
):
    caplog.set_level(logging.WARNING, logger="workers.api")
    response = APIClient().get("/api/health/")
    assert (response.status_code, response.json()) == (503, {"status": "down"})

    detailed = api_client.get("/api/health/")
    assert detailed.status_code == 503
    body = detailed.json()
    assert body["status"] == "down"
    assert body["database"] == {"ok": False, "error": "authentication failed"}
    for secret in DB_SECRETS:
        assert secret not in response.content.decode() + detailed.content.decode()
    # The operator finds the whole error in the log.
    assert DB_ERROR in caplog.text


@pytest.mark.slow  # the health check's own retry on a dead broker
def test_a_dead_broker_is_down_named_by_category_without_its_address(
    clock, pings, monkeypatch, api_client
):
    port = free_port()
    app = current_app._get_current_object()
    connect = app.connection_for_write
    dead = f"redis://:hunter2@127.0.0.1:{port}/0"
    monkeypatch.setattr(app, "connection_for_write", lambda **kwargs: connect(url=dead))
    assert public() == (503, {"status": "down"})
    detailed = api_client.get("/api/health/")
    body = detailed.json()
    assert detailed.status_code == 503 and body["status"] == "down"
    assert body["broker"] == {"ok": False, "error": "connection refused"}
    assert pings == []  # no ping through a dead broker (nor any other)
    assert "hunter2" not in detailed.content.decode() and str(port) not in detailed.content.decode()


def test_an_api_key_gets_the_details_fresh_each_time(clock, pings, api_client):
    registered("w1@host", queues=("default",))
    first = api_client.get("/api/health/")
    registered("w2@host", queues=("billing", "default"))
    second = api_client.get("/api/health/")
    assert first.status_code == second.status_code == 200
    body = first.json()
    assert body["status"] == "ok"
    assert body["database"] == {"ok": True} and body["broker"] == {"ok": True}
    assert body["workers"] == {
        "ok": True,
        "count": 1,
        "names": ["w1@host"],
        "queues": {"default": 1},
        "unserved_queues": [],
    }
    assert body["backlog"]["ok"] is True and body["backlog"]["oldest_waiting_seconds"] is None
    assert body["partitions"]["ok"] is True and body["partitions"]["ahead_days"] > 6
    assert second.json()["workers"]["queues"] == {"billing": 1, "default": 2}
    assert pings == []  # the registry answers; no broadcast, no 0.5 s wait


def test_no_live_worker_is_degraded_in_the_details(clock, api_client):
    # No active workflow either: tests that commit theirs (tests/test_asgi.py) leave them in the
    # test database, and each would name its queue unserved.
    Workflow.objects.update(active=False)
    body = api_client.get("/api/health/").json()
    assert body["status"] == "degraded"
    assert body["workers"] == {
        "ok": False,
        "count": 0,
        "names": [],
        "queues": {},
        "unserved_queues": [],
    }


def test_an_active_workflows_queue_without_a_live_worker_is_degraded_in_the_details(
    clock, api_client
):
    registered("w1@host", queues=("default",))
    WorkflowFactory(key="billing.invoice_due.v1", definition=chain(delay_node()))
    WorkflowFactory(key="reports.daily", definition=chain(delay_node()), active=False)
    body = api_client.get("/api/health/").json()
    assert body["status"] == "degraded"
    assert body["workers"]["ok"] is False and body["workers"]["unserved_queues"] == ["billing"]
    # The public face keeps its cheap checks and names nothing.
    assert public() == (200, {"status": "ok"})

    registered("w2@host", queues=("billing",))
    assert api_client.get("/api/health/").json()["status"] == "ok"


def test_step_log_partitions_running_out_are_degraded_in_the_details(clock, api_client):
    """Beat keeps them NOTIFLOW_STEP_LOG_PARTITIONS_AHEAD_DAYS ahead; under half of that left, it
    has not run for days, and the details say so before a run has nowhere to log its steps."""
    registered("w1@host", queues=("default",))
    Workflow.objects.update(active=False)
    assert api_client.get("/api/health/").json()["status"] == "ok"

    # Every partition past two days from now dropped (in this test's transaction).
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT partition FROM notiflow_step_log_ranges_v1()"
            " WHERE lower_bound >= now() + interval '2 days'"
        )
        for (name,) in cursor.fetchall():
            cursor.execute(f'DROP TABLE "{name}"')
    body = api_client.get("/api/health/").json()
    assert body["status"] == "degraded"
    partitions = body["partitions"]
    assert partitions["ok"] is False and partitions["min_ahead_days"] == 3.5
    assert 2 <= partitions["ahead_days"] <= 3  # the partition begun before the two days
    until = datetime.fromisoformat(partitions["until"])
    assert abs((until - timezone.now()).total_seconds() / 86400 - partitions["ahead_days"]) < 0.01
    assert public() == (200, {"status": "ok"})  # the public face keeps its cheap checks

    partitions_ensure()  # what beat's hourly task does
    assert api_client.get("/api/health/").json()["status"] == "ok"


def test_a_wrong_key_is_401_not_the_public_answer(clock):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Bearer not-a-key")
    assert client.get("/api/health/").status_code == 401


def test_the_schema_describes_both_faces():
    schema = APIClient().get("/api/schema/?format=json").json()
    operation = schema["paths"]["/api/health/"]["get"]
    assert {"200", "503"} <= set(operation["responses"])
    ref = operation["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
    component = schema["components"]["schemas"][ref.rsplit("/", 1)[-1]]
    assert component["required"] == ["status"]
    assert set(component["properties"]) == {
        "status",
        "database",
        "broker",
        "workers",
        "backlog",
        "partitions",
    }
    # Public: no key needed, a key accepted.
    assert {} in operation["security"] and {"ApiKey": []} in operation["security"]

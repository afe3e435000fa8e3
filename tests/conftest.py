"""Fixtures. Unit tests use pytest-django's rolled-back `db`; end-to-end tests use `stack`,
real processes on the committed test database (no flush, so every test uses unique keys)."""

from __future__ import annotations

import gc
import json
import os
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
import requests
from django.conf import settings
from django.contrib.auth.models import User
from django.db import connection
from django.test import Client
from rest_framework.test import APIClient

from tests.support.chat import ChatServer
from tests.support.databases import test_database_create
from tests.support.pgbouncer import PgBouncer, pgbouncer_missing
from tests.support.receiver import Receiver
from tests.support.smtp import SmtpServer, free_port
from tests.support.stack import Stack, wait_until_up
from triggers.api_keys import api_key_create
from triggers.models import ApiKeyScope

TEST_BROKER_URL = settings.CELERY_BROKER_URL
# NOTIFLOW_TEST_PGBOUNCER=1 (make test-pgbouncer): the stack's processes reach PostgreSQL through
# a PgBouncer in transaction mode (the `pgbouncer` fixture). The test process itself stays
# direct: it creates and migrates the test database, which a pooler need not see.
THROUGH_PGBOUNCER = os.environ.get("NOTIFLOW_TEST_PGBOUNCER", "") == "1"
# NOTIFLOW_TEST_POOL=threads: the stack's workers run the Procfile's `sends` pool instead of
# prefork (the end-to-end tests on the send-heavy layout).
STACK_POOL = os.environ.get("NOTIFLOW_TEST_POOL", "").strip() or None


def unique(prefix: str = "t") -> str:
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


# Markers by what a test uses rather than by memory, so `make test-fast` (-m "not e2e and not
# browser and not chaos and not slow") can never pick up a slow test that forgot its marker:
# `stack` is the
# real process stack behind `e2e`, `api` and `operator`; `browser_page` drives chromium.
E2E_FIXTURES = {"stack"}
BROWSER_FIXTURES = {"browser_page"}
CHAOS_DIR = Path(__file__).resolve().parent / "chaos"
# `slow`: modules whose every case costs seconds of CPU whatever the machine, left out of `make
# test-fast` (issue 30: it must stay under a minute on two cores) and run by `make test`. A
# single case may be marked `slow` too (pytest.param(..., marks=pytest.mark.slow)) when a small
# variant of the same check stays in the quick loop beside it.
SLOW_MODULES = {
    CHAOS_DIR.parent / "security" / "test_settings_deploy.py",  # a Django process per case
    CHAOS_DIR.parent / "ops" / "test_processes.py",  # docker-compose, Flower, Procfile processes
    CHAOS_DIR.parent / "workflows" / "test_admin_scale.py",  # a time budget at 200 nodes
    CHAOS_DIR.parent / "test_docs_site.py",  # MkDocs builds the whole site
    CHAOS_DIR.parent / "ops" / "test_make_run.py",  # make and manage.py processes
}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        used = set(getattr(item, "fixturenames", ()))
        if used & E2E_FIXTURES:
            item.add_marker(pytest.mark.e2e)
        if used & BROWSER_FIXTURES:
            item.add_marker(pytest.mark.browser)
        path = Path(str(item.path)).resolve()
        if CHAOS_DIR in path.parents:
            item.add_marker(pytest.mark.chaos)
        if path in SLOW_MODULES:
            item.add_marker(pytest.mark.slow)


def pytest_collection_finish(session: pytest.Session) -> None:
    """What the process has imported and collected lives as long as it does: the collector's
    full passes skip it from here on (a pass over it took ~0.2 s: the tests that measure memory
    collect first, and pytest collects at exit)."""
    gc.freeze()


@pytest.fixture(scope="session")
def django_db_setup(django_db_modify_db_settings, django_db_blocker) -> Iterator[None]:
    """Always create the test database. pytest-django creates only the databases that the
    selected tests' `django_db` markers ask for, so a run of end-to-end tests alone (which use
    committed data, not the marker) would otherwise send the stack to the development database.
    Under pytest-xdist its name ends in the process's _gw<n> (django_db_modify_db_settings)."""
    from django.test.utils import teardown_databases

    with django_db_blocker.unblock():
        config = test_database_create()  # a copy of the migrated template (tests/support)
    yield
    with django_db_blocker.unblock():
        # The session is over: connections some test's threads or processes left open would
        # hold the DROP DATABASE for PostgreSQL's five seconds of waiting for them.
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                " WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )
        teardown_databases(config, verbosity=0)


@pytest.fixture
def api_client(db) -> APIClient:
    _, key = api_key_create(name=unique("client"), scope=ApiKeyScope.ADMIN)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    return client


@pytest.fixture(scope="session")
def receiver() -> Iterator[Receiver]:
    """A webhook receiver on loopback (tests/support/receiver.py)."""
    server = Receiver()
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def chat_server() -> Iterator[ChatServer]:
    """Slack's Web API and webhooks and Teams' webhooks on loopback (tests/support/chat.py)."""
    server = ChatServer().start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def smtp_server() -> Iterator[SmtpServer]:
    server = SmtpServer()
    server.start()
    yield server
    server.stop()


# Engine timings shrunk so that retries, leases and long delays fit in a test run. Their ratios
# keep production's shape: time limit < lease, countdown cap < the "long" delay under test.
STACK_SETTINGS = {
    "NOTIFLOW_RETRY_BASE_SECONDS": "0.5",
    "NOTIFLOW_RETRY_JITTER": "0",
    "NOTIFLOW_MAX_RETRIES": "3",
    "NOTIFLOW_MAX_COUNTDOWN_SECONDS": "2",
    "NOTIFLOW_SWEEP_INTERVAL_SECONDS": "1",
    "NOTIFLOW_RENUDGE_AFTER_SECONDS": "10",
    "NOTIFLOW_LEASE_SECONDS": "8",
    "CELERY_TASK_SOFT_TIME_LIMIT": "5",
    "CELERY_TASK_TIME_LIMIT": "6",
    "EMAIL_TIMEOUT": "2",
    "NOTIFLOW_SMS_TIMEOUT_SECONDS": "2",
    "NOTIFLOW_PUSH_TIMEOUT_SECONDS": "2",
    "NOTIFLOW_CHAT_TIMEOUT_SECONDS": "2",
    # Slack and Teams are the stand-ins on loopback (tests/support/chat.py).
    "NOTIFLOW_CHAT_ALLOW_PRIVATE": "true",
    # The push services are stand-ins on loopback too (tests/support/push.py).
    "NOTIFLOW_PUSH_ALLOW_PRIVATE": "true",
    # Intake refuses a trigger whose queue no live worker serves (the production default, stated
    # here so a developer's environment cannot turn it off); workers beat often enough that a
    # stopped or killed one is noticed within seconds (live = seen within three beats).
    "NOTIFLOW_TRIGGER_REQUIRES_WORKER": "true",
    "NOTIFLOW_WORKER_HEARTBEAT_SECONDS": "2",
    # The fetch node's tests fetch from a stand-in on loopback (tests/support/fetch.py), with a
    # credential of the tests' own.
    "NOTIFLOW_FETCH_ALLOW_PRIVATE": "true",
    "NOTIFLOW_FETCH_CREDENTIALS": '{"shop": {"header": "X-Api-Key", "value": "e2e-secret"}}',
    # Webhooks go to the tests' receiver on loopback; retries within a test's patience.
    "NOTIFLOW_WEBHOOK_ALLOW_PRIVATE": "true",
    "NOTIFLOW_WEBHOOK_RETRY_BASE_SECONDS": "0.3",
    "NOTIFLOW_WEBHOOK_MAX_ATTEMPTS": "4",
    "NOTIFLOW_WEBHOOK_TIMEOUT_SECONDS": "2",
    # The tests (Schemathesis, the concurrency tests) send bursts with one key; rate limits are
    # tested on a web process of their own (tests/security/test_rate_limits.py).
    "NOTIFLOW_RATE_LIMIT_TRIGGER": "off",
    "NOTIFLOW_RATE_LIMIT_ADMIN": "off",
    # A fan-out in chunks small enough that a test can kill its workers between them, and
    # resumed within seconds when its task was lost.
    "NOTIFLOW_FANOUT_CHUNK_SIZE": "100",
    "NOTIFLOW_FANOUT_RESUME_AFTER_SECONDS": "3",
    # A bulk action in chunks small enough that a test can kill its workers between them.
    "NOTIFLOW_ACTION_CHUNK_SIZE": "50",
    "NOTIFLOW_RATE_LIMIT_INBOX": "off",
    # GET /metrics on (tests/ops/test_metrics_e2e.py); the stack's processes record into its
    # NOTIFLOW_METRICS_DIR (set per stack, under its work directory).
    "NOTIFLOW_METRICS_TOKEN": "metrics-test-token",
    # The in-app inbox's browser test serves its page from this origin (tests/inbox/).
    "NOTIFLOW_INBOX_SECRET": "inbox-test-secret",
}

# The stack's worker groups (docs/design/rules.md, rule 11): `default` is served by two, `billing`
# (workflows with keys `billing.*`) by one, and `webhooks` (the webhook dispatcher's queue, as
# the Procfile's) by one of its own. Each registers under its name (`default@<host>`).
STACK_WORKERS = {
    "default": ["default"],
    "billing": ["billing", "default"],
    "webhooks": ["webhooks"],
}


def broker_clear(url: str) -> None:
    """Nothing left in the test broker from an earlier run: the Redis database flushed, or on
    RabbitMQ (CELERY_BROKER_URL=amqp://...) the queues the stack consumes purged."""
    if url.startswith("redis://"):
        redis.Redis.from_url(url).flushdb()
        return
    from celery import current_app

    with current_app.connection_for_write(url) as connection:
        channel = connection.default_channel
        for queue in {
            queue for queues in STACK_WORKERS.values() for queue in queues or ["default"]
        }:
            try:
                channel.queue_purge(queue)
            except Exception:  # not declared yet: nothing to purge
                channel = connection.channel()


def pgbouncer_start(**options: Any) -> PgBouncer:
    """A PgBouncer of its own (tests/support/pgbouncer.py) in front of the test PostgreSQL."""
    missing = pgbouncer_missing()
    if missing:
        pytest.fail(missing)
    db = settings.DATABASES["default"]
    return PgBouncer(
        server_host=db["HOST"] or "127.0.0.1",
        server_port=int(db["PORT"] or 5432),
        user=db["USER"],
        **options,
    ).start()


@pytest.fixture(scope="session")
def pgbouncer(django_db_setup) -> Iterator[PgBouncer]:
    """One PgBouncer in transaction mode for the session (default_pool_size 10); stopped before
    the test database is dropped (its server connections would keep the drop waiting)."""
    bouncer = pgbouncer_start()
    yield bouncer
    bouncer.stop()


@pytest.fixture(scope="session")
def stack(
    request, django_db_setup, django_db_blocker, smtp_server, chat_server, tmp_path_factory
) -> Iterator[Stack]:
    """gunicorn + two Celery workers (STACK_WORKERS) + beat against the test database and the
    test SMTP server; through the session's PgBouncer under NOTIFLOW_TEST_PGBOUNCER=1."""
    workdir = tmp_path_factory.mktemp("stack")
    broker_clear(TEST_BROKER_URL)
    db = settings.DATABASES["default"]
    assert db["NAME"].startswith("test_"), f"refusing to run the stack on {db['NAME']!r}"
    database_url = f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}"
    if THROUGH_PGBOUNCER:
        database_url = request.getfixturevalue("pgbouncer").url(db["NAME"])
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "notiflow.settings",
        "DATABASE_URL": database_url,
        "CELERY_BROKER_URL": TEST_BROKER_URL,
        "EMAIL_URL": f"smtp://127.0.0.1:{smtp_server.port}",
        "NOTIFLOW_SMS_BACKEND": "file",
        "NOTIFLOW_SMS_FILE": str(workdir / "sms.jsonl"),
        "NOTIFLOW_SLACK_API_URL": chat_server.slack_api_url,
        "NOTIFLOW_SLACK_BOT_TOKEN": chat_server.token,
        "PYTHONUNBUFFERED": "1",
        **STACK_SETTINGS,
    }
    env["DJANGO_STATIC_ROOT"] = str(workdir / "static")
    env["NOTIFLOW_METRICS_DIR"] = str(workdir / "metrics")
    stack = Stack(env=env, workdir=workdir)
    stack.collectstatic()
    stack.web(free_port())
    for name, queues in STACK_WORKERS.items():
        stack.worker(name, queues=queues, pool=STACK_POOL)
    stack.beat()
    try:
        with django_db_blocker.unblock():
            _, stack.env["API_KEY"] = api_key_create(name=unique("e2e"), scope=ApiKeyScope.ADMIN)
        wait_until_up(stack, workers=len(STACK_WORKERS), api_key=stack.env["API_KEY"])
        yield stack
    except BaseException:
        print(stack.logs())
        raise
    finally:
        stack.stop()


@pytest.fixture
def e2e(stack, django_db_blocker) -> Iterator[Stack]:
    """The stack, with this test's ORM queries committed (so the processes see them)."""
    with django_db_blocker.unblock():
        yield stack


@pytest.fixture
def admin_client(db) -> Client:
    """An operator logged in to the admin (a superuser named "operator"), in-process."""
    client = Client()
    client.force_login(User.objects.create_superuser("operator", "op@example.com", "pw"))
    return client


@pytest.fixture
def operator(e2e) -> Client:
    """An operator logged in to the admin (in-process Django, on the stack's database): what it
    changes commits, and its nudges reach the stack's workers."""
    client = Client()
    client.force_login(User.objects.create_superuser(unique("operator"), "op@example.com", "pw"))
    return client


class Api:
    """A tiny HTTP client for the live stack."""

    def __init__(self, stack: Stack):
        self.base = stack.base_url
        self.session = requests.Session()
        self.session.headers["Authorization"] = f"Bearer {stack.env['API_KEY']}"

    def post(self, path: str, body: Any, **kwargs: Any) -> requests.Response:
        return self.session.post(self.base + path, json=body, timeout=10, **kwargs)

    def get(self, path: str) -> requests.Response:
        return self.session.get(self.base + path, timeout=10)

    def delete(self, path: str, body: Any = None) -> requests.Response:
        return self.session.delete(self.base + path, json=body, timeout=10)

    def patch(self, path: str, body: Any) -> requests.Response:
        return self.session.patch(self.base + path, json=body, timeout=10)

    def put(self, path: str, body: Any) -> requests.Response:
        return self.session.put(self.base + path, json=body, timeout=10)


@pytest.fixture
def api(e2e) -> Api:
    return Api(e2e)


def sms_outbox(stack: Stack) -> list[dict[str, Any]]:
    path = Path(stack.env["NOTIFLOW_SMS_FILE"])
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]

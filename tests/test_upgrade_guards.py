"""Guards of what the code takes from the private or undocumented API of its libraries, where no
other test held it precisely (docs/upgrading.md lists every such place and its guard). Each test
fails, naming the assumption, when an upgrade changes what it relies on."""

from __future__ import annotations

import json
import re
import signal
import uuid
from pathlib import Path

import pytest
import redis
from celery.fixups.django import DjangoWorkerFixup
from django.conf import settings
from django.contrib.admin.models import ADDITION, LogEntry
from django.db import ProgrammingError, connection, connections, transaction
from django.template import Engine
from django.template.loader_tags import BlockNode, ExtendsNode

from common import db
from common.broker import Channel, TaskCall, TaskMessageWriter
from notiflow.celery import GracefulBeat, app
from tests.conftest import TEST_BROKER_URL
from tests.factories import WorkflowFactory
from workflows.models import Workflow
from workflows.templating import (
    TemplateError,
    condition_holds,
    condition_variable_paths,
    template_render,
    template_variable_paths,
)

ROOT = Path(__file__).resolve().parents[1]
QUEUE = "notiflow-test-guards"


# --- kombu: the transport (common/broker.py, Channel) -----------------------------------------


def test_kombu_sends_its_commands_through_conn_or_acquire_on_one_client(monkeypatch):
    """kombu's Redis channel must still route commands outside its event loop (a publish's LPUSH)
    through `conn_or_acquire`, and build clients with `_create_client(asynchronous=...)`: the
    override then makes one synchronous client for any number of commands."""
    synchronous_clients = []
    create_client = Channel._create_client

    def counting(self, asynchronous=False):
        if not asynchronous:
            synchronous_clients.append(self)
        return create_client(self, asynchronous=asynchronous)

    monkeypatch.setattr(Channel, "_create_client", counting)
    client = redis.Redis.from_url(TEST_BROKER_URL)
    client.delete(QUEUE)
    with app.connection_for_write() as broker:
        for n in range(3):
            app.send_task("workers.execute_node", args=[f"t-{n}"], queue=QUEUE, connection=broker)
    assert client.llen(QUEUE) == 3
    client.delete(QUEUE)
    assert len(synchronous_clients) == 1, (
        "kombu no longer sends commands through Channel.conn_or_acquire"
        if not synchronous_clients
        else "one client per command again"
    )


# --- Celery: the direct nudge writer from inside a task (common/broker.py) ---------------------


def test_a_direct_message_sent_from_a_task_names_the_parent_celery_names():
    """The writer finds the running task as Celery's own send_task does (`app.current_worker_task`)
    and fills parent_id and root_id the same way."""
    client = redis.Redis.from_url(TEST_BROKER_URL)
    client.delete(QUEUE)
    writer = TaskMessageWriter.for_app(app)
    assert writer is not None

    @app.task(name="tests.guards.publish_both", shared=False)
    def publish_both() -> None:
        app.send_task("workers.execute_node", args=["t-1"], queue=QUEUE)
        assert writer.publish("workers.execute_node", [TaskCall(["t-1"], QUEUE, 0)])

    parent_id = str(uuid.uuid4())
    publish_both.apply(task_id=parent_id)
    celerys, ours = (json.loads(client.rpop(QUEUE)) for _ in range(2))  # oldest first

    assert celerys["headers"]["parent_id"] == ours["headers"]["parent_id"] == parent_id
    assert celerys["headers"]["root_id"] == ours["headers"]["root_id"]
    for message in (celerys, ours):
        for key in ("id", "origin"):
            message["headers"].pop(key)
        for key in ("correlation_id", "delivery_tag"):
            message["properties"].pop(key)
    assert ours == celerys


# --- Django: the connection internals common/db.py uses ---------------------------------------


@pytest.mark.django_db
def test_django_resets_health_check_done_between_requests_and_honours_it():
    """`health_check_done` (Django 4.1+, undocumented): close_old_connections clears it before
    each request or task, and a query skips the ping while it is set (connection_reuse_begin
    sets it)."""
    wrapper = connections.create_connection("default")
    try:
        wrapper.ensure_connection()
        assert wrapper.health_check_enabled
        wrapper.close_if_unusable_or_obsolete()  # what close_old_connections does
        assert wrapper.connection is not None and wrapper.health_check_done is False
        pings: list[int] = []

        def is_usable() -> bool:
            pings.append(1)
            return True

        wrapper.is_usable = is_usable  # type: ignore[method-assign]
        wrapper.health_check_done = True
        with wrapper.cursor() as cursor:
            cursor.execute("SELECT 1")
        assert pings == []
        wrapper.health_check_done = False
        with wrapper.cursor() as cursor:
            cursor.execute("SELECT 1")
        assert pings == [1]
    finally:
        wrapper.close()


@pytest.mark.django_db
def test_a_prepared_statement_error_is_djangos_and_marks_the_connection(monkeypatch):
    """`connection.wrap_database_errors` turns psycopg's errors into Django's and sets
    `errors_occurred`, which connection_reuse_end reads: a failed task is health-checked next."""
    monkeypatch.setattr(db._last_ok, "at", None, raising=False)
    try:
        with pytest.raises(ProgrammingError), transaction.atomic():
            db.fetchone_prepared("SELECT missing FROM notiflow_no_such_table", {})
        assert connection.errors_occurred
        db.connection_reuse_end()
        assert db._last_ok.at is None
    finally:
        connection.errors_occurred = False


@pytest.mark.django_db
def test_a_prepared_statement_runs_in_djangos_transaction_with_its_adapters():
    """A psycopg cursor on `connection.connection` shares the transaction of Django's cursors
    (it sees their uncommitted rows, and the same now()) and Django's type adapters (aware UTC
    datetimes). jsonb may come back as text (Django's loader) or decoded: the code takes both."""
    workflow = WorkflowFactory()
    trigger_id = uuid.uuid4()
    row = db.fetchone_prepared(
        f"SELECT key, now(), %(id)s::uuid, %(doc)s::jsonb FROM {Workflow._meta.db_table} "  # noqa: S608
        "WHERE id = %(pk)s",
        {"pk": workflow.pk, "id": trigger_id, "doc": json.dumps({"a": 1})},
    )
    assert row is not None
    key, now, echoed, doc = row
    assert key == workflow.key
    with connection.cursor() as cursor:
        cursor.execute("SELECT now()")
        assert now == cursor.fetchone()[0] and now.utcoffset().total_seconds() == 0
    assert echoed == trigger_id
    assert (json.loads(doc) if isinstance(doc, str) else doc) == {"a": 1}


# --- Celery: the Django fixup and Beat (notiflow/settings.py, notiflow/celery.py) ---------------


def test_celerys_django_fixup_keeps_the_connection_for_celery_db_reuse_max_tasks(monkeypatch):
    """CELERY_DB_REUSE_MAX is read by Celery's Django fixup (undocumented): with it, the fixup's
    per-task close leaves the connection alone."""
    fixup = DjangoWorkerFixup(app)
    assert fixup.db_reuse_max == settings.CELERY_DB_REUSE_MAX > 1
    closed: list[int] = []
    monkeypatch.setattr(fixup, "_close_database", lambda: closed.append(1))
    for _ in range(4):  # prerun and postrun of two tasks
        fixup.close_database()
    assert closed == []


def test_beat_stops_through_our_handler_which_never_touches_the_database(monkeypatch):
    """`celery beat` builds `app.Beat`, whose start_scheduler calls install_sync_handler(service)
    (undocumented) before service.start(); our handler raises SystemExit before the scheduler
    exists and otherwise only sets the service's private `_is_shutdown`."""
    from celery import beat as celery_beat

    assert issubclass(app.Beat, GracefulBeat)
    beat = app.Beat(scheduler="celery.beat:Scheduler", quiet=True, socket_timeout=None)
    started: dict[str, object] = {}
    monkeypatch.setattr(beat, "setup_logging", lambda *args, **kwargs: None)
    monkeypatch.setattr(
        celery_beat.Service,
        "start",
        lambda service, *a, **k: started.update(service=service, sigterm=signal.getsignal(15)),
    )
    previous = signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)
    try:
        beat.start_scheduler()
        service, handler = started["service"], started["sigterm"]
        assert callable(handler) and "GracefulBeat" in handler.__qualname__
        assert signal.getsignal(signal.SIGINT) is handler
        with pytest.raises(SystemExit):  # still starting: nothing to save
            handler(signal.SIGTERM, None)
        assert service.scheduler is not None
        assert "scheduler" in vars(service), "Service.scheduler is no longer a cached property"
        handler(signal.SIGTERM, None)
        assert service._is_shutdown.is_set()
    finally:
        signal.signal(signal.SIGTERM, previous[0])
        signal.signal(signal.SIGINT, previous[1])


# --- Django admin internals (triggers/admin, workflows/admin, their templates) -------------------


@pytest.mark.django_db
def test_a_malformed_trigger_id_in_the_admin_redirects_as_djangos_own_pages_do(admin_client):
    """The trigger page's change_view calls ModelAdmin._get_obj_does_not_exist_redirect."""
    response = admin_client.get("/admin/triggers/triggerinstance/not-a-uuid/change/", follow=True)
    assert response.redirect_chain == [("/admin/", 302)]
    assert any("not-a-uuid" in str(message) for message in response.context["messages"])


@pytest.mark.django_db
def test_an_admin_added_workflow_is_logged_and_continued_under_its_id(admin_client):
    """save_model saves through the services and hands the admin the new row's pk: its log entry
    and the "save and continue" redirect use it."""
    from tests.workflows.test_admin_authoring import ADD_URL, three_node_post

    response = admin_client.post(ADD_URL, {**three_node_post("wf-guard"), "_continue": "1"})
    workflow = Workflow.objects.get(key="wf-guard")
    assert response.status_code == 302
    assert response.url == f"/admin/workflows/workflow/{workflow.pk}/change/"
    entry = LogEntry.objects.get(action_flag=ADDITION, content_type__model="workflow")
    assert entry.object_id == str(workflow.pk)


def _blocks(template_name: str, skip: list | None = None) -> tuple[set[str], str | None, object]:
    """The blocks a template defines, the template it extends (if any) and where it was found.
    `skip`: origins already seen, as Django skips a template that extends its own name (our
    templates/admin/base_site.html extends Django's admin/base_site.html)."""
    template, origin = Engine.get_default().find_template(template_name, skip=skip)
    nodelist = template.nodelist
    extends = nodelist.get_nodes_by_type(ExtendsNode)
    parent = extends[0].parent_name.var if extends else None
    return {node.name for node in nodelist.get_nodes_by_type(BlockNode)}, parent, origin


def _blocks_of_chain_above(template_name: str, below: object) -> set[str]:
    """The blocks of `template_name` and its ancestors, as the template found at `below`
    extends it (so a template extending its own name reaches the one it overrides)."""
    names: set[str] = set()
    seen: list = [below]
    current: str | None = template_name
    while current:
        blocks, current, origin = _blocks(current, skip=seen)
        seen.append(origin)
        names |= blocks
    return names


def test_the_admin_templates_we_extend_still_have_every_block_we_fill():
    """A block that Django's admin templates renamed or dropped would silently render nothing."""
    ours = sorted(
        path.relative_to(base).as_posix()
        for base in (
            ROOT / "templates",
            ROOT / "workflows" / "templates",
            ROOT / "triggers" / "templates",
            ROOT / "events" / "templates",
        )
        for path in (base / "admin").rglob("*.html")
    )
    checked = []
    for name in ours:
        blocks, parent, origin = _blocks(name)
        if parent is None:
            continue  # an include, not a page
        missing = blocks - _blocks_of_chain_above(parent, origin)
        assert missing == set(), f"{name} fills blocks {parent} no longer has: {sorted(missing)}"
        checked.append(name)
    assert len(checked) >= 8, checked


# --- python-liquid (workflows/templating.py) ----------------------------------------------------


def test_liquid_names_an_undefined_variable_and_conditions_stay_lenient():
    with pytest.raises(TemplateError) as raised:
        template_render("Hi {{ payload.first_name }}", {"payload": {}})
    assert str(raised.value) == "payload.first_name is undefined"
    assert condition_holds("payload.vip", {"payload": {}}) is False
    assert condition_holds('payload.plan == "pro"', {"payload": {"plan": "pro"}}) is True


@pytest.mark.parametrize(
    ("source", "limit"),
    [
        ("{% for i in (1..20000) %}x{% endfor %}", "NOTIFLOW_TEMPLATE_MAX_ITERATIONS"),
        ("{% for i in (1..5000) %}" + "x" * 300 + "{% endfor %}", "OUTPUT_CHARS"),
        (
            '{% assign s = "x" %}{% for i in (1..30) %}{% assign s = s | append: s %}{% endfor %}',
            "NOTIFLOW_TEMPLATE_MAX_NAMESPACE_BYTES",
        ),
    ],
)
def test_liquid_applies_the_resource_limits_the_environment_sets(source, limit):
    """The render budget (workflows/templating.py) rides on liquid's RenderContext hooks
    (raise_for_loop_limit, assign, local_namespace_limit) and render_with_context with our own
    output buffer: a liquid that stopped calling them would let these run unbounded."""
    with pytest.raises(TemplateError, match=limit):
        template_render(source, {})


def test_liquid_reports_the_global_variable_paths_a_template_reads():
    """global_variable_segments(): dotted and bracketed names as strings, loop variables left
    out; an index (an int segment) drops the path."""
    source = (
        '{{ payload.user.email }} {{ vars["email_a"].message_id }} {{ trigger.id }}'
        "{% for i in payload.items %}{{ i.name }}{{ payload.list[0] }}{% endfor %}"
    )
    assert sorted(template_variable_paths(source)) == [
        ("payload", "items"),
        ("payload", "user", "email"),
        ("trigger", "id"),
        ("vars", "email_a", "message_id"),
    ]
    assert sorted(condition_variable_paths('payload.vip and payload.plan == "pro"')) == [
        ("payload", "plan"),
        ("payload", "vip"),
    ]


# --- docs/upgrading.md stays true ---------------------------------------------------------------

UPGRADING = ROOT / "docs" / "upgrading.md"
UPGRADING_MORE = ROOT / "docs" / "upgrading-more.md"  # its entries from DRF on
CITED = re.compile(r"`(tests/[\w/]+\.py)::(test_\w+)`")


def test_every_guard_docs_upgrading_names_exists():
    cited = CITED.findall(UPGRADING.read_text() + UPGRADING_MORE.read_text())
    assert len(cited) >= 40, cited
    missing = [
        f"{path}::{name}"
        for path, name in cited
        if not (ROOT / path).exists()
        or not re.search(rf"^def {name}\(", (ROOT / path).read_text(), re.M)
    ]
    assert missing == []


def test_the_versions_docs_upgrading_says_were_checked_are_the_pinned_ones():
    """A changed pin in constraints.txt fails here until docs/upgrading.md has been read and its
    table updated (its guards run, its entries still true)."""
    table = UPGRADING.read_text().split("## The versions checked", 1)[1].split("\n## ", 1)[0]
    checked = dict(re.findall(r"`([\w.-]+)==([\w.]+)`", table))
    pins = dict(re.findall(r"^([\w.-]+)==(\S+)$", (ROOT / "constraints.txt").read_text(), re.M))
    pins = {name.lower().replace("_", "-"): version for name, version in pins.items()}
    assert len(checked) >= 9
    stale = {
        name: (version, pins.get(name.lower()))
        for name, version in checked.items()
        if pins.get(name.lower()) != version
    }
    assert stale == {}, "docs/upgrading.md (checked, pinned): " + repr(stale)

"""Rules that two places need, written once (issue 32 §2): the rate-limit Lua, the provider-name
pattern, the trigger's fields. Each test fails when a second copy appears again."""

from __future__ import annotations

from tests.support.sources import project_sources
from tests.support.stack import ROOT


def test_the_rate_limit_lua_is_one_file_both_limiters_load():
    from common import throttling
    from workers.services import provider_rates

    inline = [str(p.relative_to(ROOT)) for p in project_sources() if "redis.call" in p.read_text()]
    assert inline == [], f"Lua written in Python source (keep it in common/gcra.lua): {inline}"
    script = (ROOT / "common" / "gcra.lua").read_text()
    url = "redis://127.0.0.1:1/0"  # never connected to: registering a script only keeps its text
    assert throttling._script(url).script == script
    assert provider_rates._script(url).script == script


def test_the_provider_name_pattern_is_written_once():
    from workflows.definition import PROVIDER_NAME

    written = [
        str(p.relative_to(ROOT))
        for p in project_sources()
        if PROVIDER_NAME.pattern in p.read_text() or "[a-z][a-z0-9_]{0,49}" in p.read_text()
    ]
    assert written == ["workflows/definition.py"], f"the provider-name pattern in: {written}"


def test_the_triggers_fields_are_listed_once_by_its_representation():
    from triggers.api import TriggerOutputSerializer
    from triggers.representation import trigger_fields

    source = (ROOT / "triggers" / "api.py").read_text()
    assert '"delete_reason"' not in source, "triggers/api.py lists the trigger's fields again"
    assert TriggerOutputSerializer.Meta.fields == trigger_fields()
    assert trigger_fields()[:3] == ("id", "workflow", "workflow_version")
    assert (
        trigger_fields()[-1] == "trace_id" and len(trigger_fields()) == 24
    )  # 21: `recipient` (issue 33); 22: `trace_id` (issue 36); 23: `locale`, 24: `tenant` (issue 48)


def test_what_a_release_sets_is_its_functions_set_clause_and_its_events_read_the_row(db):
    """What a release sets is the SET clause of the current release function (RELEASE_FUNCTION)
    as installed, and nothing else says it: the events it writes, built by the worker from the
    run as claimed, show the run as that UPDATE left it, every column it set read back by its
    RETURNING (triggers migration 0024), clocks included; a retry's `retry_at` is the row's
    new `available_at`."""
    import re
    from datetime import timedelta

    from events import catalog
    from events.models import OutboxEvent, WebhookEndpoint
    from events.services.endpoints import endpoint_create
    from events.services.outbox import announcements_json
    from tests.factories import chain, delay_node, email_node
    from tests.support.functions import function_definition
    from tests.triggers.support import claim
    from tests.workers.helpers import due_trigger
    from triggers.announce import announcement
    from triggers.models import TriggerInstance
    from triggers.representation import trigger_fields, trigger_json
    from triggers.sql import RELEASE_FUNCTION
    from triggers.steps import Release, StepRecord, trigger_release_with

    body = function_definition(RELEASE_FUNCTION)
    update = re.search(
        r"UPDATE public\.trigger_instance t\s+SET (.*?)\s+WHERE t\.id = run_id AND t\.status",
        body,
        re.S,
    )
    assert update, "the release's fenced UPDATE is not where this test looks"
    set_columns = {c.split("=", 1)[0].strip() for c in update.group(1).split(",\n")}
    overlaid = re.search(r"RETURNING t\.workflow_id, t\.priority,(.*?)INTO workflow", body, re.S)
    assert overlaid, "the release's RETURNING is not where this test looks"
    shown = set(re.findall(r"^\s+'(\w+)',", overlaid.group(1), re.M))
    # Every column it sets is read back for the events, as the API names it (the cursor is the
    # node's); but nudged_at, which the API does not show.
    as_shown = {"current_node_id": "cursor"}
    assert {as_shown.get(c, c) for c in set_columns - {"nudged_at"}} == shown
    assert shown <= set(trigger_fields()) and "nudged_at" not in trigger_fields()

    WebhookEndpoint.objects.all().delete()
    endpoint_create(url="http://127.0.0.1:9/hook", events=["*"])
    trigger = due_trigger(chain(delay_node("wait"), email_node("mail")))
    TriggerInstance.objects.filter(pk=trigger.pk).update(vars={"kept": 1})
    claimed = claim(trigger_id=trigger.pk, worker_id="w/1", lease_seconds=60)
    release = Release(
        status="enqueued",
        current_node_id="mail",
        wait=timedelta(minutes=1),
        reason="retry",
        vars_patch={"added": 2},
        attempts=1,
        nudged=True,
        last_error="boom",
    )
    failed = {"node_id": "wait", "attempt": 1, "error": "boom", "retry_at": None}
    announced = [announcement(catalog.STEP_FAILED, claimed, step=failed)]
    record = StepRecord(events=announcements_json(announced))
    assert trigger_release_with(trigger=claimed, lease_token="w/1", release=release, record=record)
    row = TriggerInstance.objects.get(pk=trigger.pk)
    (event,) = OutboxEvent.objects.filter(trigger_id=trigger.pk)
    assert event.data["trigger"] == trigger_json(row)
    assert row.vars == {"kept": 1, "added": 2} and row.status == "enqueued"
    assert row.available_at - row.updated_at == timedelta(minutes=1)
    assert event.data["step"] == {**failed, "retry_at": trigger_json(row)["available_at"]}


def test_a_time_is_written_as_the_api_writes_it_by_the_releases_function(db):
    """notiflow_api_time_v1, which writes the times of the release's events, writes them as
    triggers.representation does (DRF's DateTimeField in UTC): with and without microseconds."""
    from datetime import UTC, datetime

    from django.db import connection

    from triggers.representation import _datetime

    moments = [
        datetime(2026, 11, 28, 21, 12, 25, 123456, tzinfo=UTC),
        datetime(2026, 11, 28, 21, 12, 25, 120000, tzinfo=UTC),
        datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC),
        datetime(2026, 1, 2, 3, 4, 5, 1, tzinfo=UTC),
        None,
    ]
    with connection.cursor() as cursor:
        for moment in moments:
            cursor.execute("SELECT notiflow_api_time_v1(%s)", [moment])
            assert cursor.fetchone()[0] == _datetime(moment, UTC), moment


def test_which_triggers_a_purge_deletes_is_one_sql_predicate_both_call(db):
    """The purge functions (PL/pgSQL) and the dry run's counts (workers/sql.py) call the same
    predicate; the finished one agrees with TERMINAL_STATUSES; both are inlined (the plan of the
    dry run's count is that of the expression written out)."""
    from datetime import timedelta

    from django.db import connection
    from django.utils import timezone

    from triggers.models import TERMINAL_STATUSES, TriggerStatus
    from workers.sql import DELETED, FINISHED

    with connection.cursor() as cursor:
        for purge, predicate in (
            (FINISHED, "notiflow_purge_finished_v1"),
            (DELETED, "notiflow_purge_deleted_v2"),
        ):
            cursor.execute("SELECT pg_get_functiondef(%s::regproc)", [purge.function])
            assert predicate in cursor.fetchone()[0], purge.function
            assert purge.doomed_where.startswith(f"{predicate}(")
        long_ago, cutoff = timezone.now() - timedelta(days=9), timezone.now()
        for status in TriggerStatus.values:
            cursor.execute(
                "SELECT notiflow_purge_finished_v1(%s, %s, %s, %s)",
                [status, long_ago, long_ago, cutoff],
            )
            assert cursor.fetchone()[0] == (status in TERMINAL_STATUSES), status
        params = {"cutoff": cutoff}
        written_out = {
            FINISHED: "t.status IN ('completed', 'failed', 'cancelled') "
            "AND t.created_at < %(cutoff)s AND t.completed_at < %(cutoff)s",
            DELETED: "t.deleted_at < %(cutoff)s "
            "AND (t.lease_until IS NULL OR t.lease_until < statement_timestamp())",
        }
        for purge, expression in written_out.items():
            plans = []
            for where in (purge.doomed_where, expression):
                sql = purge.count_sql("trigger_instance").replace(purge.doomed_where, where)
                cursor.execute("EXPLAIN (COSTS OFF) " + sql, params)
                plans.append([row[0] for row in cursor.fetchall()])
            assert plans[0] == plans[1], purge.function


def test_which_events_a_purge_deletes_is_one_sql_function_both_read(db):
    """`notiflow_purge_events_batch` (PL/pgSQL) and the dry run's counts (events/sql.py) read
    `notiflow_events_purgeable_v1` (events migration 0005) and write no delivery status of their
    own; it is inlined (the plan of a count is that of the query written out)."""
    from django.db import connection
    from django.utils import timezone

    from events.sql import EVENT_PURGE_COUNT_SQL, EVENT_TABLE
    from tests.support.functions import function_definition

    function = "notiflow_events_purgeable_v1("
    purge = function_definition("notiflow_purge_events_batch")
    assert function in purge and "'pending'" not in purge
    for table, sql in EVENT_PURGE_COUNT_SQL.items():
        assert function in sql and "pending" not in sql, table
    written_out = (
        "(SELECT o.id, o.event_id FROM outbox_event o WHERE o.time < %(cutoff)s AND NOT EXISTS "
        "(SELECT 1 FROM webhook_delivery d WHERE d.event_id = o.id AND d.status = 'pending')) o"
    )
    count, cutoff = EVENT_PURGE_COUNT_SQL[EVENT_TABLE], timezone.now()
    plans = []
    with connection.cursor() as cursor:
        for sql in (
            count,
            count.replace(
                "(SELECT o.id, o.event_id FROM notiflow_events_purgeable_v1(%(cutoff)s) o) o",
                written_out,
            ),
        ):
            assert "%(cutoff)s" in sql
            cursor.execute("EXPLAIN (COSTS OFF) " + sql, {"cutoff": cutoff})
            plans.append([row[0] for row in cursor.fetchall()])
    assert plans[0] == plans[1]

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
        trigger_fields()[-1] == "trace_id" and len(trigger_fields()) == 23
    )  # 21: `recipient` (issue 33); 22: `trace_id` (issue 36); 23: `locale` (issue 48)


def test_a_releases_columns_are_set_by_its_function_and_mirrored_in_memory(db):
    """What a release sets is the SET clause of the current release function (RELEASE_FUNCTION) as installed (the rule);
    released_copy (what the events announce, built before the release runs) mirrors it from
    triggers.steps.RELEASED_VALUES: the same columns, and the copy equals the row the function
    leaves, but for the clocks (the function's and the step's differ by a moment)."""
    import re
    from datetime import timedelta

    from django.utils import timezone

    from tests.factories import chain, delay_node, email_node
    from tests.support.functions import function_definition
    from tests.triggers.support import claim
    from tests.workers.helpers import due_trigger
    from triggers.models import TriggerInstance
    from triggers.sql import RELEASE_FUNCTION
    from triggers.steps import RELEASED_VALUES, Release, released_copy, trigger_release

    update = re.search(
        r"UPDATE public\.trigger_instance t\s+SET (.*?)\s+WHERE t\.id = run_id AND t\.status",
        function_definition(RELEASE_FUNCTION),
        re.S,
    )
    assert update, "the release's fenced UPDATE is not where this test looks"
    set_columns = [c.split("=", 1)[0].strip() for c in update.group(1).split(",\n")]
    assert set_columns == [*RELEASED_VALUES]
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
    after = released_copy(claimed, release, now=timezone.now())
    assert trigger_release(trigger=claimed, lease_token="w/1", release=release)
    row = TriggerInstance.objects.get(pk=trigger.pk)
    clocked = {"nudged_at", "updated_at", "completed_at"}
    for column in RELEASED_VALUES:
        if column in clocked:
            assert (getattr(after, column) is None) == (getattr(row, column) is None), column
        elif column == "available_at":  # the same wait, added to either clock
            assert abs(after.available_at - row.available_at) < timedelta(seconds=5)
            assert row.available_at - row.updated_at == timedelta(minutes=1)
        else:
            assert getattr(after, column) == getattr(row, column), column
    assert after.vars == {"kept": 1, "added": 2}


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

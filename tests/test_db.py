"""common/db.py: prepared hot statements, and the health check skipped on a fresh connection."""

import time

import pytest
from django.db import connection

from common import db

pytestmark = pytest.mark.django_db


@pytest.fixture
def pings(monkeypatch):
    """Every health-check ping Django sends from now on (the connection stays usable)."""
    sent: list[float] = []
    connection.ensure_connection()

    def is_usable() -> bool:
        sent.append(time.monotonic())
        return True

    monkeypatch.setattr(connection, "is_usable", is_usable)
    return sent


def next_request_or_task() -> None:
    """What Django's close_old_connections leaves for the next request or task, then ours."""
    connection.health_check_done = False
    db.connection_reuse_begin()


def test_a_connection_fine_moments_ago_is_not_pinged(pings):
    db.connection_reuse_end()
    next_request_or_task()
    assert db.fetchone_prepared("SELECT %(n)s::int + 1", {"n": 1}) == (2,)
    assert pings == []


def test_an_idle_or_failed_connection_is_pinged_first(pings, monkeypatch):
    db.connection_reuse_end()
    monkeypatch.setattr(db, "HEALTH_CHECK_IDLE_SECONDS", 0.0)
    next_request_or_task()
    db.fetchone_prepared("SELECT 1", {})
    assert len(pings) == 1

    monkeypatch.setattr(db, "HEALTH_CHECK_IDLE_SECONDS", 60.0)
    connection.errors_occurred = True
    db.connection_reuse_end()  # a request or task that failed says nothing
    connection.errors_occurred = False
    db._last_ok.at = time.monotonic() - 120
    next_request_or_task()
    db.fetchone_prepared("SELECT 1", {})
    assert len(pings) == 2


def test_hot_statements_are_prepared_on_the_connection():
    sql = "SELECT %(a)s::int * 2 AS doubled"
    assert db.fetchone_prepared(sql, {"a": 21}) == (42,)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_prepared_statements WHERE statement LIKE %s",
            [sql.replace("%(a)s", "$1")],
        )
        assert cursor.fetchone()[0] == 1


def test_hot_statements_run_through_execute_wrappers_and_are_counted(
    django_assert_num_queries,
):
    seen = []

    def wrapper(execute, sql, params, many, context):
        seen.append((sql, dict(params), context["connection"] is connection))
        return execute(sql, params, many, context)

    with connection.execute_wrapper(wrapper), django_assert_num_queries(1):
        assert db.fetchone_prepared("SELECT %(n)s::int + 1", {"n": 4}) == (5,)
    assert seen == [("SELECT %(n)s::int + 1", {"n": 4}, True)]

"""Prepared statements and server-side cursors behind a pooler (common/pooler.py): a process
finds out at its first connection whether PgBouncer stands in between, switches off what that
PgBouncer cannot keep, and says so once; direct to PostgreSQL everything stays on. Against a
real PgBouncer (tests/support/pgbouncer.py) and the test PostgreSQL. And what DATABASE_POOLER and
DATABASE_PREPARED_STATEMENTS decide at start, before any connection."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from django.conf import settings
from django.db.backends.postgresql.base import DatabaseWrapper

from common.pooler import pooler_forget
from tests.conftest import pgbouncer_start
from tests.support.pgbouncer import PgBouncer
from tests.support.stack import ROOT

# A statement of the hot path's kind, run as common/db.py runs them: prepare=True.
HOT_STATEMENT = "SELECT count(*) FROM pg_class WHERE relname = %(name)s"
OFF_BECAUSE = (
    " (they need PgBouncer >= 1.21 with max_prepared_statements > 0; "
    "DATABASE_PREPARED_STATEMENTS=true if yours keeps them)"
)


@pytest.fixture(autouse=True)
def probe_afresh() -> Iterator[None]:
    """Each test's connections are probed as a new process's would be."""
    pooler_forget()
    yield
    pooler_forget()


@pytest.fixture
def connect(db, django_db_blocker) -> Iterator[Any]:
    """New Django connections (as a process opens them) to the test database at a port."""
    opened: list[DatabaseWrapper] = []

    def open_at(port: int) -> DatabaseWrapper:
        settings_dict = {**settings.DATABASES["default"], "PORT": str(port)}
        settings_dict["OPTIONS"] = dict(settings_dict.get("OPTIONS", {}))
        # The alias names the test database's (django.contrib.postgres looks its types up there).
        wrapper = DatabaseWrapper(settings_dict, alias="default")
        with django_db_blocker.unblock():
            wrapper.ensure_connection()
        opened.append(wrapper)
        return wrapper

    yield open_at
    for wrapper in opened:
        wrapper.close()


def prepared_by_hot_statement(wrapper: DatabaseWrapper) -> int:
    """Run the hot statement with prepare=True, then count the statements prepared on the
    server connection it ran on (in one transaction: behind transaction pooling, one server)."""
    raw = wrapper.connection
    with raw.transaction(), psycopg.Cursor(raw) as cursor:
        cursor.execute(HOT_STATEMENT, {"name": "pg_class"}, prepare=True)
        cursor.execute("SELECT count(*) FROM pg_prepared_statements WHERE name LIKE '_pg3_%%'")
        row = cursor.fetchone()
    assert row is not None
    return int(row[0])


def pooler_lines(caplog: pytest.LogCaptureFixture) -> list[tuple[int, str]]:
    return [(r.levelno, r.getMessage()) for r in caplog.records if r.name == "notiflow.db"]


def test_behind_pgbouncer_without_prepared_statements_they_go_off_with_one_log_line(
    pgbouncer: PgBouncer, connect: Any, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="notiflow.db")
    version = pgbouncer.console("SHOW VERSION")[0]["version"]
    assert version.startswith("PgBouncer 1.") and int(version.split(".")[1]) < 21, version

    first = connect(pgbouncer.port)
    assert first.connection.prepare_threshold is None
    assert prepared_by_hot_statement(first) == 0
    assert first.settings_dict["DISABLE_SERVER_SIDE_CURSORS"] is True
    # The process's next connection is not probed again, and is set up the same.
    second = connect(pgbouncer.port)
    assert second.connection.prepare_threshold is None

    assert pooler_lines(caplog) == [
        (
            logging.WARNING,
            f"{version} in transaction mode at 127.0.0.1:{pgbouncer.port}: "
            f"prepared statements off{OFF_BECAUSE}, server-side cursors off",
        )
    ]


def test_direct_to_postgresql_prepared_statements_stay_on_and_nothing_is_logged(
    connect: Any, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="notiflow.db")
    direct = connect(int(settings.DATABASES["default"]["PORT"] or 5432))
    assert direct.connection.prepare_threshold == 5
    assert prepared_by_hot_statement(direct) >= 1
    assert not direct.settings_dict.get("DISABLE_SERVER_SIDE_CURSORS")
    assert pooler_lines(caplog) == []


def test_a_pooler_whose_console_does_not_answer_is_taken_for_transaction_pooling(
    connect: Any, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="notiflow.db")
    bouncer = pgbouncer_start(console_users=False)
    try:
        behind = connect(bouncer.port)
        assert behind.connection.prepare_threshold is None
        assert prepared_by_hot_statement(behind) == 0
        assert behind.settings_dict["DISABLE_SERVER_SIDE_CURSORS"] is True
    finally:
        bouncer.stop()
    ((level, line),) = pooler_lines(caplog)
    assert level == logging.WARNING
    assert line.startswith(
        f"a connection pooler at 127.0.0.1:{bouncer.port} whose admin console did not answer ("
    )
    assert line.endswith(
        f"taken for transaction pooling: prepared statements off{OFF_BECAUSE}, "
        "server-side cursors off"
    )


def test_behind_pgbouncer_in_session_mode_prepared_statements_stay_on(
    connect: Any, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="notiflow.db")
    bouncer = pgbouncer_start(pool_mode="session")
    try:
        behind = connect(bouncer.port)
        assert behind.connection.prepare_threshold == 5
        assert prepared_by_hot_statement(behind) >= 1
        assert not behind.settings_dict.get("DISABLE_SERVER_SIDE_CURSORS")
        version = bouncer.console("SHOW VERSION")[0]["version"]
    finally:
        bouncer.stop()
    assert pooler_lines(caplog) == [
        (
            logging.INFO,
            f"{version} in session mode at 127.0.0.1:{bouncer.port}: "
            "prepared statements on, server-side cursors on",
        )
    ]


def settings_under(**env: str) -> subprocess.CompletedProcess[str]:
    """notiflow.settings loaded in a process of its own with `env`: what it made of the
    database, as JSON, or its refusal."""
    script = (
        "import json; from notiflow import settings as s; db = s.DATABASES['default']; "
        "print(json.dumps([s.DATABASE_POOLER, s.DATABASE_PREPARED_STATEMENTS, "
        "db['OPTIONS'].get('prepare_threshold'), db.get('DISABLE_SERVER_SIDE_CURSORS', False)]))"
    )
    return subprocess.run(
        [sys.executable, "-c", script],
        env={**os.environ, **env},
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.parametrize(
    ("pooler", "prepared", "expected"),
    [
        # auto: prepared until a probe finds a pooler that cannot keep them.
        ("auto", "auto", ["auto", "auto", 5, False]),
        ("none", "auto", ["none", "auto", 5, False]),
        # A transaction pooler said, not probed: both off, unless prepared statements are vouched for.
        ("transaction", "auto", ["transaction", "auto", None, True]),
        ("transaction", "true", ["transaction", "true", 5, True]),
        ("auto", "false", ["auto", "false", None, False]),
        # The boolean spellings the setting had before `auto`.
        ("auto", "0", ["auto", "false", None, False]),
        ("auto", "yes", ["auto", "true", 5, False]),
    ],
)
def test_the_pooler_settings_decide_at_start_what_needs_no_probe(
    pooler: str, prepared: str, expected: list[Any]
) -> None:
    result = settings_under(DATABASE_POOLER=pooler, DATABASE_PREPARED_STATEMENTS=prepared)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == expected


@pytest.mark.parametrize(
    ("name", "choices"),
    [
        ("DATABASE_POOLER", "auto, none or transaction"),
        ("DATABASE_PREPARED_STATEMENTS", "auto, true or false"),
    ],
)
def test_an_unknown_pooler_setting_stops_the_process_naming_the_choices(
    name: str, choices: str
) -> None:
    result = settings_under(**{name: "pgbouncer2"})
    assert result.returncode != 0
    assert f"notiflow: {name} is {choices}, not 'pgbouncer2'" in result.stderr

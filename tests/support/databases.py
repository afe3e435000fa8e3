"""The test database, copied from a template that was migrated once.

Migrating an empty database through every migration takes seconds of the two cores at the
start of every test process (each of `make test-fast`'s two, and each of `make test`'s three
runs). The schema those migrations make depends only on their files, the models (Django's
`post_migrate` adds content types and permissions from them) and Django's version; so the first
process to need it migrates a test database as Django does, then copies it as
`notiflow_template_<digest of those>`, and every later process — on this machine, in any slot —
creates its test database as a copy of that template (`CREATE DATABASE … TEMPLATE`), which
takes a fraction of a second. A change to any of those files makes another digest, hence a new
template; the newest few are kept (worktrees of different commits on one machine each use
their own). One advisory lock on the server orders the processes that start at once: the
second waits for the first's template.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import django
import psycopg
from django.conf import settings
from django.db import connection
from django.test.utils import setup_databases
from django.utils import timezone

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE_PREFIX = "notiflow_template_"
# pg_advisory_lock's key while a template is looked for or made ("tmpl" in ASCII).
_LOCK_KEY = 0x746D706C

KEPT = 4
# What django.test.utils.teardown_databases takes: (connection, the name before, drop it).
OldConfig = list[Any]


def schema_digest() -> str:
    """What the migrated schema depends on: every migration, every app's models, the migration
    operations of `common`, and Django's version."""
    files = sorted(
        [
            *ROOT.glob("*/migrations/*.py"),
            *ROOT.glob("*/models.py"),
            *ROOT.glob("*/models/*.py"),
            ROOT / "common" / "migrations_ops.py",
        ]
    )
    digest = hashlib.sha256(django.get_version().encode())
    for path in files:
        digest.update(path.relative_to(ROOT).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def _quoted(name: str) -> str:
    return connection.ops.quote_name(name)


@contextlib.contextmanager
def _server(dbname: str = "postgres") -> Iterator[psycopg.Connection]:
    """A connection to the server's `postgres` database, or `dbname` (none of Django's: a test
    that uses no database fixture may still make a database of its own)."""
    db = settings.DATABASES["default"]
    with psycopg.connect(
        dbname=dbname,
        host=db["HOST"],
        port=db["PORT"] or None,
        user=db["USER"],
        password=db["PASSWORD"] or None,
        autocommit=True,
    ) as server:
        yield server


def test_database_create() -> OldConfig:
    """Create the test database (for the `default` alias) and point the connection at it: a
    copy of the current template, made first if there is none. The value is what
    `django.test.utils.teardown_databases` takes to drop it afterwards."""
    test_name = connection.creation._get_test_db_name()
    template = TEMPLATE_PREFIX + schema_digest()
    with _server() as server:
        server.execute("SELECT pg_advisory_lock(%s)", [_LOCK_KEY])
        try:
            templates = [
                row[0]
                for row in server.execute(
                    "SELECT datname FROM pg_database WHERE starts_with(datname, %s) ORDER BY oid",
                    [TEMPLATE_PREFIX],
                )
            ]
            if template not in templates:
                # Migrated as Django does it (not serialized: no test asks for serialized_rollback).
                config = setup_databases(
                    verbosity=0, interactive=False, aliases={"default"}, serialized_aliases=set()
                )
                connection.close()  # a template takes no connection while it is copied
                for older in templates[: max(0, len(templates) - KEPT + 1)]:  # the oldest
                    server.execute(f"DROP DATABASE IF EXISTS {_quoted(older)} WITH (FORCE)")
                server.execute(f"CREATE DATABASE {_quoted(template)} TEMPLATE {_quoted(test_name)}")
                return config
            server.execute(f"DROP DATABASE IF EXISTS {_quoted(test_name)} WITH (FORCE)")
            server.execute(f"CREATE DATABASE {_quoted(test_name)} TEMPLATE {_quoted(template)}")
        finally:
            server.execute("SELECT pg_advisory_unlock(%s)", [_LOCK_KEY])
    old_name = connection.settings_dict["NAME"]
    connection.close()
    settings.DATABASES[connection.alias]["NAME"] = test_name
    connection.settings_dict["NAME"] = test_name
    _partitions_ahead(test_name)
    return [(connection, old_name, True)]


def _partitions_ahead(name: str) -> None:
    """Every partitioned history table's partitions (the step log's, the run events') up to a
    week past today in database `name`, as beat keeps them (workers.services.history): a
    template may be days old, its partitions made the day it was."""
    from workers.sql import PARTITIONED

    upto = timezone.now() + timedelta(days=settings.NOTIFLOW_STEP_LOG_PARTITIONS_AHEAD_DAYS)
    with _server(name) as copy:
        for history in PARTITIONED:
            copy.execute(
                history.partitions_sql,
                {"upto": upto, "span": settings.NOTIFLOW_STEP_LOG_PARTITION_DAYS},
            )


def database_from_template(name: str) -> None:
    """(Re)create database `name` as a copy of the current template (made by this session's
    `test_database_create`, which runs first): a migrated, empty database in a fraction of a
    second, for a process of a test's own."""
    template = TEMPLATE_PREFIX + schema_digest()
    with _server() as server:
        server.execute("SELECT pg_advisory_lock(%s)", [_LOCK_KEY])
        try:
            server.execute(f"DROP DATABASE IF EXISTS {_quoted(name)} WITH (FORCE)")
            server.execute(f"CREATE DATABASE {_quoted(name)} TEMPLATE {_quoted(template)}")
        finally:
            server.execute("SELECT pg_advisory_unlock(%s)", [_LOCK_KEY])
    _partitions_ahead(name)


def database_drop(name: str) -> None:
    """Drop database `name` (made by `database_from_template`), whoever is still connected."""
    with _server() as server:
        server.execute(f"DROP DATABASE IF EXISTS {_quoted(name)} WITH (FORCE)")

"""Intake's statements are whole (issue 45 §3): one `.sql` file per variant under
triggers/statements/, loaded by name, nothing filled in; the registry's rule "a live worker
serves this queue" is one SQL function (registry migration 0002) that every statement needing
it calls and PostgreSQL inlines; a fan-out chunk's runs are the state machine's SECURITY
DEFINER function (triggers migration 0023)."""

from __future__ import annotations

import re
import uuid
from pathlib import Path

import pytest
from django.db import connection

from common.statements import statement_files, statement_load
from registry.sql import QUEUE_SERVED_FUNCTION, live_within_seconds
from tests.support.functions import function_definition
from triggers import sql
from triggers.sql import STATUS_PARAMS, TRIGGER_COLUMNS

VARIANTS = {
    "intake": sql.INTAKE_SQL,
    "intake_many": sql.INTAKE_MANY_SQL,
    "intake_traced": sql.INTAKE_TRACED_SQL,
    "intake_many_traced": sql.INTAKE_MANY_TRACED_SQL,
}
EXISTING = {
    "intake_existing": sql.INTAKE_EXISTING_SQL,
    "intake_existing_many": sql.INTAKE_EXISTING_MANY_SQL,
}
# What the registry's rule reads: no statement or module of triggers spells it out.
RULE = re.compile(r"last_seen_at|stopped_at|\bworker\b\s+(?:wk\b|WHERE)")


@pytest.mark.parametrize("name", [*VARIANTS, *EXISTING])
def test_each_variant_is_its_own_file_loaded_whole(name):
    text = {**VARIANTS, **EXISTING}[name]
    assert text == statement_load(sql.__file__, name)
    assert "@" not in text and "{" not in text.replace("'{}'", "")


@pytest.mark.parametrize("name", VARIANTS)
def test_each_intake_calls_the_registrys_rule(name):
    assert QUEUE_SERVED_FUNCTION + "(w.queue, %(live_within)s::float8)" in VARIANTS[name]


def test_no_intake_statement_is_assembled_in_python():
    source = Path(sql.__file__).read_text()
    assert "_INTAKE_TEMPLATE" not in source and ".replace(" not in source


@pytest.mark.parametrize("name", [*VARIANTS, *EXISTING])
def test_each_variant_answers_the_runs_columns_in_the_models_order(name):
    text = {**VARIANTS, **EXISTING}[name]
    alias = "t" if name in EXISTING else "inserted"
    final = text.rsplit("\n)\nSELECT", 1)[-1]
    assert re.findall(rf"\b{alias}\.(\w+)(?![\w.])", final.split("\nFROM")[0]) == TRIGGER_COLUMNS


def test_the_live_worker_rule_is_written_once_in_sql():
    texts = [p.read_text() for p in statement_files(sql.__file__)]
    texts += [Path(sql.__file__).read_text()]
    assert not [t for t in texts if RULE.search(t)]


@pytest.mark.django_db
def test_the_fanout_function_calls_the_rule_and_runs_as_its_owner():
    body = function_definition(sql.FANOUT_RUNS_FUNCTION)
    assert f"public.{QUEUE_SERVED_FUNCTION}(w.queue," in body and not RULE.search(body)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT prosecdef, proconfig FROM pg_proc WHERE proname = %s",
            [sql.FANOUT_RUNS_FUNCTION],
        )
        assert cursor.fetchone() == (True, ["search_path=pg_catalog, public"])


@pytest.mark.django_db
def test_the_rule_is_inlined_into_intakes_plan():
    params = {
        **STATUS_PARAMS,
        "idx": 0,
        "id": uuid.uuid4(),
        "workflow": "w",
        "key": "k",
        "payload": "{}",
        "priority": None,
        "cancellation_key": "",
        "hash": "",
        "recipient": "",
        "locale": "",
        "tenant": "",
        "actor": "a",
        "require_worker": True,
        "live_within": live_within_seconds(),
    }
    with connection.cursor() as cursor:
        cursor.execute("EXPLAIN (VERBOSE, COSTS OFF) " + sql.INTAKE_SQL, params)
        plan = "\n".join(row[0] for row in cursor.fetchall())
    assert QUEUE_SERVED_FUNCTION not in plan
    assert "public.worker wk" in plan and "wk.last_seen_at" in plan

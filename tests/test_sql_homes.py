"""The raw SQL lives in one home per table family (triggers/sql.py, workers/sql.py, events/sql.py,
and the run's database functions of triggers migration 0013) and keeps to the composition
contract in triggers/sql.py's header: names from the models, statuses as parameters (in the
modules; a versioned function spells them), and every INSERT naming each column that has no
database default."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from django.apps import apps
from django.db import models

import events.sql
import events.work
import recipients.sql
import triggers.sql
import triggers.work
import waits.sql
import workers.sql
from common.statements import statement_files
from events.models import DeliveryStatus
from events.work import DELIVERIES
from recipients.models import FanoutStatus
from tests.support.functions import function_definition
from tests.support.stack import ROOT
from triggers.models import TriggerActionStatus, TriggerStatus
from triggers.work import RUNS
from workers.models import SendStatus

STATEMENTS = {
    "intake": triggers.sql.INTAKE_SQL,
    "intake (many)": triggers.sql.INTAKE_MANY_SQL,
    "intake (traced)": triggers.sql.INTAKE_TRACED_SQL,
    "intake (many, traced)": triggers.sql.INTAKE_MANY_TRACED_SQL,
    "sweep due": RUNS.sweep_due_sql,
    "sweep expired": RUNS.sweep_expired_sql,
    "deliveries' sweep due": DELIVERIES.sweep_due_sql,
    "deliveries' sweep expired": DELIVERIES.sweep_expired_sql,
    "recipient upsert (merge)": recipients.sql.UPSERT_MERGE_SQL,
    "recipient upsert (replace)": recipients.sql.UPSERT_REPLACE_SQL,
    "recipient create or compare": recipients.sql.CREATE_OR_COMPARE_SQL,
}
# The claim, the release, a fan-out chunk's runs, the operator's cancel, retry and replay and the
# outbox write: their INSERTs are in their bodies.
FUNCTIONS = (
    triggers.sql.CLAIM_FUNCTION,
    triggers.sql.FANOUT_RUNS_FUNCTION,
    triggers.sql.RELEASE_FUNCTION,
    triggers.sql.RUNS_CANCEL_FUNCTION,
    triggers.sql.RUN_RETRY_FUNCTION,
    triggers.sql.RUN_REPLAY_FUNCTION,
    events.sql.OUTBOX_WRITE_FUNCTION,
)
INSERT = re.compile(r"INSERT INTO (?:public\.)?(\w+)(?: AS \w+)?\s*\(([^)]*)\)")


def needs_a_value(field: models.Field) -> bool:
    """NOT NULL and nothing in the database fills it in (a Python-side default does not)."""
    generated = field.primary_key and isinstance(field, models.AutoField | models.BigAutoField)
    return not field.null and not field.has_db_default() and not generated


def model_of(table: str) -> type[models.Model]:
    return next(m for m in apps.get_models() if m._meta.db_table == table)


@pytest.fixture
def statements(db) -> dict[str, str]:
    """STATEMENTS, and the functions' definitions as installed."""
    return {**STATEMENTS, **{name: function_definition(name) for name in FUNCTIONS}}


def test_each_statement_has_an_insert_to_check(statements):
    inserts = [m for sql in statements.values() for m in INSERT.finditer(sql)]
    tables = {m.group(1) for m in inserts}
    assert tables == {
        "trigger_instance",
        "trigger_event",
        "send_ledger",
        "step_log",
        "outbox_event",
        "webhook_delivery",
        "recipient",
        "inbox_message",  # the release (v2) stores an in-app step's message
    }


@pytest.mark.parametrize("name", [*STATEMENTS, *FUNCTIONS])
def test_every_insert_names_each_column_without_a_database_default(name, statements):
    for insert in INSERT.finditer(statements[name]):
        model = model_of(insert.group(1))
        named = {column.strip() for column in insert.group(2).split(",")}
        required = {str(f.column) for f in model._meta.concrete_fields if needs_a_value(f)}
        assert required <= named, f"{name}: {model.__name__} misses {sorted(required - named)}"


def test_a_new_column_without_a_default_would_be_caught():
    # The check above is only as good as needs_a_value: it must flag such a column.
    column = models.CharField(max_length=5)
    assert needs_a_value(column)
    assert not needs_a_value(models.CharField(max_length=5, null=True))
    assert not needs_a_value(models.DateTimeField(db_default=models.functions.Now()))


STATEMENT_FILES = [
    path
    for module in (triggers.sql, events.sql, waits.sql)
    for path in statement_files(module.__file__ or "")
]


def test_no_status_is_written_as_a_literal():
    statuses = "|".join(
        [
            *TriggerStatus.values,
            *SendStatus.values,
            *DeliveryStatus.values,
            *FanoutStatus.values,
            *TriggerActionStatus.values,
        ]
    )
    literal = re.compile(rf"'({statuses})'")
    for module in (triggers.sql, triggers.work, workers.sql, events.sql, events.work):
        source = Path(module.__file__ or "").read_text()
        assert not literal.findall(source), f"{module.__name__} spells a status"
    assert len(STATEMENT_FILES) >= 12
    for path in STATEMENT_FILES:
        assert not literal.findall(path.read_text()), f"{path.name} spells a status"


@pytest.mark.parametrize("path", STATEMENT_FILES, ids=lambda path: path.name)
def test_every_statement_file_names_tables_that_exist(path):
    """A statement file names its tables as they are (no `_meta` fills them in): each one it
    updates or reads from is a model's table (the names its WITH queries give aside)."""
    tables = {m._meta.db_table for m in apps.get_models()}
    text = path.read_text()
    named = set(re.findall(r"(?:UPDATE|FROM|JOIN)\s+([a-z_]+)(?![.\w(])", text))
    common_tables = set(re.findall(r"(?:WITH|\),)\s+([a-z_]+) AS \(", text))
    assert named and named - common_tables <= tables, (
        path.name,
        sorted(named - common_tables - tables),
    )


def test_bench_imports_only_public_names_of_the_project():
    project = ("common", "notiflow", "triggers", "workers", "workflows", "events", "registry")
    private = []
    for path in (ROOT / "bench").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(project):
                private += [f"{path.name}: {a.name}" for a in node.names if a.name.startswith("_")]
    assert private == []


def test_waits_statements_are_whole_strings_nothing_filled_in():
    """waits/sql.py assembles no SQL from Python pieces: every statement is one string constant
    (no f-string, concatenation or call), and what statements share is a function they call by
    name (notiflow_wait_recorded_v1, the state machine's run transitions)."""
    tree = ast.parse(Path(waits.sql.__file__ or "").read_text())
    statements = 0
    for node in tree.body:
        if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = [t.id for t in targets if isinstance(t, ast.Name)]
            if any(name.endswith("_SQL") for name in names):
                statements += 1
                assert isinstance(node.value, ast.Constant), f"{names} is assembled"
    assert statements >= 14
    assert not [
        n for n in ast.walk(tree) if isinstance(n, ast.JoinedStr) and "SELECT" in ast.unparse(n)
    ]


def test_the_versioned_functions_statements_call_are_installed_and_current(db):
    """A statement calls a versioned function (`notiflow_<name>_v<n>`) by its name written out:
    each one named in waits/sql.py and in every statement file is installed, and is its latest
    version (a version bump in a migration moves its callers in the same change)."""
    from tests.support.functions import installed_functions, superseded

    installed = installed_functions()
    old = superseded(installed)
    texts = {"waits/sql.py": Path(waits.sql.__file__ or "").read_text()}
    texts |= {str(path.relative_to(ROOT)): path.read_text() for path in STATEMENT_FILES}
    called = {
        (where, name)
        for where, text in texts.items()
        for name in re.findall(r"\b(notiflow_\w+_v\d+)\(", text)
    }
    assert {name for _, name in called} >= {
        triggers.sql.RUNS_HOLD_FUNCTION,
        triggers.sql.RUNS_RESUME_FUNCTION,
        triggers.sql.RUN_PARK_FUNCTION,
        triggers.sql.RUN_ENDED_FUNCTION,
        "notiflow_wait_recorded_v1",
    }
    assert [c for c in called if c[1] not in installed or c[1] in old] == []

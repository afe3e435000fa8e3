"""A run's status changes only through triggers' state machine (docs/design/index.md, "One home for each
rule"): claim, release, park, resume, cancel, delete, requeue, retry and intake are statements or
functions of `triggers`, which `waits`, `inbox`, `deliveries` and the sweeps call. No other
package names the run table in its SQL, nor writes it through the name triggers exports for it
(`TRIGGER_TABLE`: a read through it, as the digest's check of its opener or the retention's
dry-run counts, changes nothing)."""

from __future__ import annotations

import re

from tests.support.sources import project_sources
from tests.support.stack import ROOT
from triggers.models import TriggerInstance

RUN_TABLE = TriggerInstance._meta.db_table
OWNER = "triggers/"

# The run table's name after a keyword that takes a table (FROM, JOIN, UPDATE, INTO, TABLE); or
# the name triggers exports, interpolated into a write.
_NAMED = re.compile(
    rf"\b(?:FROM|JOIN|UPDATE|INTO|TABLE)\s+(?:public\.)?{re.escape(RUN_TABLE)}\b"
    r"|\b(?:UPDATE|INSERT\s+INTO|DELETE\s+FROM)\s+\{TRIGGER_TABLE\}",
    re.IGNORECASE,
)


def run_table_statements(source: str) -> list[str]:
    """The lines of `source` whose SQL names the run table, or writes it."""
    return [line.strip() for line in source.splitlines() if _NAMED.search(line)]


def test_the_scan_finds_sql_naming_the_run_table():
    assert run_table_statements("    UPDATE trigger_instance t\n    SET status = 'x'") == [
        "UPDATE trigger_instance t"
    ]
    assert run_table_statements("INSERT INTO {TRIGGER_TABLE} (id)") == [
        "INSERT INTO {TRIGGER_TABLE} (id)"
    ]
    assert run_table_statements("JOIN {TRIGGER_TABLE} t ON t.id = d.opener_id") == []
    assert run_table_statements('"""No foreign key to trigger_instance: ..."""') == []


def test_no_package_but_triggers_names_the_run_table_in_sql():
    """Migrations are frozen history and left out: the retention functions of workers' older
    migrations delete runs, and stay as they were written."""
    found = [
        f"{path.relative_to(ROOT).as_posix()}: {line}"
        for path in project_sources()
        if not path.relative_to(ROOT).as_posix().startswith(OWNER)
        for line in run_table_statements(path.read_text())
    ]
    assert found == []

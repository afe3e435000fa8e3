"""Bad input to an operator command is one clear line on stderr and exit 1, never a traceback:
run as the operator runs them, `python manage.py ...` in a process of its own."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid

import pytest
from django.conf import settings

from tests.support.stack import ROOT

CASES = [
    (["cancel_trigger", "not-a-uuid"], "of its first hex digits): 'not-a-uuid'"),
    (["cancel_trigger", ""], "not a trigger id (a UUID, or at least 4 of its first hex"),
    (["cancel_trigger", "abc"], "digits): 'abc'; nothing was changed"),
    (["cancel_trigger", "fffffffe"], "no trigger id starts with 'fffffffe'; nothing was changed"),
    (["cancel_trigger", str(uuid.UUID(int=7))], "1 of 1 not cancelled"),
    (["delete_trigger", "not-a-uuid"], "of its first hex digits): 'not-a-uuid'"),
    (["delete_trigger", "fffffffe"], "no trigger id starts with 'fffffffe'"),
    (["delete_trigger", str(uuid.UUID(int=7))], "1 of 1 not deleted"),
    (["delete_trigger", str(uuid.UUID(int=7)), "--reason", "x" * 1001], "--reason must be"),
    (["retry_failed", "--workflow", "nope"], "--workflow: no workflow 'nope'"),
    (["retry_failed", "--workflow", ""], "--workflow: give a workflow key"),
    (["retry_failed", "--since", "2026-13-01"], "'2026-13-01' is not a valid date"),
    (["retry_failed", "--since", ""], "'' is neither a date nor an age"),
    (["validate_workflows", "--workflow", "nope"], "--workflow: no workflow 'nope'"),
    (["requeue_stuck", "--older-than", "soon"], "'soon' is neither a date nor an age"),
    (["trigger_workflow", "nope", "--idempotency-key", "k"], "workflow 'nope' does not exist"),
    (["export_workflow", "nope"], "no workflow 'nope'"),
    (
        ["import_workflow", "/nonexistent.json"],
        "cannot read the workflow export from /nonexistent.json: No such file or directory",
    ),
    (["purge_logs", "--older-than", "0s"], "--older-than must be longer than zero"),
    (["purge_deleted", "--older-than", "0s"], "--older-than must be longer than zero"),
    (["purge_deleted", "--older-than", "30d", "--batch-size", "0"], "--batch-size must be"),
]


@pytest.fixture(scope="module")
def manage_env(django_db_setup) -> dict[str, str]:
    db = settings.DATABASES["default"]
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "notiflow.settings",
        "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
    }


@pytest.mark.parametrize(
    ("args", "message"), CASES, ids=lambda v: " ".join(v) if isinstance(v, list) else ""
)
def test_bad_input_is_one_line_and_exit_1(manage_env, args, message):
    done = subprocess.run(
        [sys.executable, str(ROOT / "manage.py"), *args],
        env=manage_env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    assert message in done.stderr
    assert len(done.stderr.strip().splitlines()) <= 2, done.stderr  # a detail line at most

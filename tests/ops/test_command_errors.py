"""Bad input to an operator command is one clear line on stderr and exit 1, never a traceback.

Each case goes through `manage.py`'s own entry point (`execute_from_command_line`: Django turns a
CommandError into its one line and the exit status) in this process, on the committed test
database; one case also runs as the operator runs it, `python manage.py ...` in a process of its
own. (Eighteen processes took half a minute of `make test-fast`, issue 30.)"""

from __future__ import annotations

import os
import subprocess
import sys
import uuid

import pytest
from django.conf import settings
from django.core.management import execute_from_command_line

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
    (["runs_action", "cancel"], "give at least one of --workflow, --status,"),
    (["runs_action", "retry", "--workflow", "nope"], "--workflow: no workflow 'nope'"),
    (["runs_action", "replay", "--ids", "7"], "--ids: 0: Must be a valid UUID."),
    (
        [
            "runs_action",
            "cancel",
            "--created-after",
            "2026-11-02",
            "--created-before",
            "2026-11-01",
        ],
        "--created-before: must be later than created_after",
    ),
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


def stderr_lines(text: str) -> list[str]:
    return text.strip().splitlines()


@pytest.mark.parametrize(
    ("args", "message"), CASES, ids=lambda v: " ".join(v) if isinstance(v, list) else ""
)
def test_bad_input_is_one_line_and_exit_1(
    django_db_setup, django_db_blocker, capsys, args, message
):
    with django_db_blocker.unblock(), pytest.raises(SystemExit) as exit_:
        execute_from_command_line(["manage.py", *args])
    stderr = capsys.readouterr().err
    assert exit_.value.code == 1, stderr
    assert "Traceback" not in stderr
    assert message in stderr
    assert len(stderr_lines(stderr)) <= 2, stderr  # a detail line at most


@pytest.mark.slow  # a manage.py process per case
def test_bad_input_in_a_process_of_its_own_is_one_line_and_exit_1(django_db_setup):
    db = settings.DATABASES["default"]
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "notiflow.settings",
        "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
    }
    done = subprocess.run(
        [sys.executable, str(ROOT / "manage.py"), "cancel_trigger", "not-a-uuid"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1, done.stderr
    assert stderr_lines(done.stderr) == [
        "CommandError: not a trigger id (a UUID, or at least 4 of its first hex digits): "
        "'not-a-uuid'; nothing was changed"
    ]

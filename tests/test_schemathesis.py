"""Schemathesis against the live stack's gunicorn: every operation of /api/schema/, with the
stack's API key, generated valid and invalid input; no answer may be a 5xx or stray from the
schema. `make test` runs a bounded number of examples per operation; `make schemathesis` a
longer run (SCHEMATHESIS_MAX_EXAMPLES, SCHEMATHESIS_SEED)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.conftest import unique
from tests.factories import chain, delay_node
from tests.support.stack import BIN

pytestmark = pytest.mark.e2e

CHECKS = "not_a_server_error,response_schema_conformance"
MAX_EXAMPLES = int(os.environ.get("SCHEMATHESIS_MAX_EXAMPLES", "20"))
# A fixed seed by default: the same cases each run, so a failure can be run again.
SEED = os.environ.get("SCHEMATHESIS_SEED", "20261123")


def config_file(directory: Path, *, trigger_workflow: str, workflow: str, trigger: str) -> Path:
    """Schemathesis's configuration: besides random values, names that exist (with the given
    probability), so that generated requests also reach real workflows and triggers instead of
    ending in 404 and "unknown workflow"."""
    path = directory / "schemathesis.toml"
    path.write_text(
        f"""
[dictionaries.trigger-workflows]
values = ["{trigger_workflow}"]
[dictionaries.workflows]
values = ["{workflow}"]
[dictionaries.triggers]
values = ["{trigger}"]

[parameters]
"body.workflow" = {{ dictionary = "trigger-workflows", probability = 0.7 }}
"query.workflow" = {{ dictionary = "trigger-workflows", probability = 0.5 }}
"path.key" = {{ dictionary = "workflows", probability = 0.5 }}
"path.trigger_id" = {{ dictionary = "triggers", probability = 0.5 }}
"query.trigger" = {{ dictionary = "triggers", probability = 0.5 }}
"""
    )
    return path


def seed_data(api) -> dict[str, str]:
    """A workflow for triggers (one delay node: runs without sending), another for the workflow
    operations to replace, edit and delete, and a trigger."""
    keys = {"trigger_workflow": unique("st-fire"), "workflow": unique("st-edit")}
    for key in keys.values():
        body = {"key": key, "name": key, **chain(delay_node("wait", delay_ms=0))}
        created = api.post("/api/workflows/", body)
        assert created.status_code == 201, created.text
    fired = api.post(
        "/api/triggers/",
        {"workflow": keys["trigger_workflow"], "idempotency_key": unique(), "payload": {}},
    )
    assert fired.status_code == 201, fired.text
    return {**keys, "trigger": fired.json()["id"]}


@pytest.mark.timeout(900)
def test_no_operation_answers_5xx_or_strays_from_the_schema(e2e, api, tmp_path):
    report = tmp_path / "schemathesis.json"
    config = config_file(tmp_path, **seed_data(api))
    argv = [
        str(BIN / "st"),
        "--config-file",
        str(config),
        "run",
        f"{e2e.base_url}/api/schema/",
        "--checks",
        CHECKS,
        "--max-examples",
        str(MAX_EXAMPLES),
        "--seed",
        SEED,
        "--header",
        f"Authorization: Bearer {e2e.env['API_KEY']}",
        "--workers",
        "2",
        "--request-timeout",
        "30",
        "--generation-database",
        "none",
        "--report",
        "json",
        "--report-json-path",
        str(report),
        "--no-color",
    ]
    result = subprocess.run(
        argv, cwd=tmp_path, capture_output=True, text=True, timeout=840, env=os.environ.copy()
    )
    output = result.stdout[-12000:] + result.stderr[-3000:]
    summary = json.loads(report.read_text())
    operations, cases = summary["operations"], summary["test_cases"]
    print(
        f"schemathesis: {operations['tested']}/{operations['total']} operations, "
        f"{cases['generated']} cases, failures: {summary['failures']}, errors: {summary['errors']}"
    )
    assert summary["failures"] == [] and summary["errors"] == [], output
    assert operations["tested"] == operations["total"] > 0, output
    assert result.returncode == 0, output

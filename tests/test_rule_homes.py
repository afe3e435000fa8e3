"""Rules that two places need, written once (issue 32 §2): the rate-limit Lua, the provider-name
pattern, the trigger's fields. Each test fails when a second copy appears again."""

from __future__ import annotations

from pathlib import Path

from tests.support.stack import ROOT

SOURCES = ("notiflow", "triggers", "workers", "events", "deliveries", "registry", "workflows")


def project_sources() -> list[Path]:
    return [path for package in SOURCES for path in (ROOT / package).rglob("*.py")]


def test_the_rate_limit_lua_is_one_file_both_limiters_load():
    from notiflow import throttling
    from workers.services import provider_rates

    inline = [str(p.relative_to(ROOT)) for p in project_sources() if "redis.call" in p.read_text()]
    assert inline == [], f"Lua written in Python source (keep it in notiflow/gcra.lua): {inline}"
    script = (ROOT / "notiflow" / "gcra.lua").read_text()
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
    assert trigger_fields()[-1] == "delete_reason" and len(trigger_fields()) == 20

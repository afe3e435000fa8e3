"""A setting the processes cannot run with stops them in one sentence naming the setting, its
value and the limit it breaks (docs/security/deployment.md, "Production environment"), never a traceback
(issue 44: a provider timeout at the soft time limit stopped every process with a ValueError).
The settings module runs here in-process under each environment; one whole process is started
in tests/security/test_settings_deploy.py."""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

SETTINGS = Path(__file__).resolve().parents[2] / "notiflow" / "settings.py"

CASES = [
    ({"NOTIFLOW_PUSH_TIMEOUT_SECONDS": "30"}, "NOTIFLOW_PUSH_TIMEOUT_SECONDS=30.0", "(30)"),
    ({"NOTIFLOW_CHAT_TIMEOUT_SECONDS": "45"}, "NOTIFLOW_CHAT_TIMEOUT_SECONDS=45.0", "(30)"),
    ({"NOTIFLOW_SMS_TIMEOUT_SECONDS": "31"}, "NOTIFLOW_SMS_TIMEOUT_SECONDS=31.0", "(30)"),
    ({"ANYMAIL_REQUESTS_TIMEOUT": "15"}, "ANYMAIL_REQUESTS_TIMEOUT=15", "half of"),
    ({"ANYMAIL_REQUESTS_TIMEOUT": "ten"}, "ANYMAIL_REQUESTS_TIMEOUT='ten'", "float"),
    ({"NOTIFLOW_WEBHOOK_TIMEOUT_SECONDS": "15"}, "NOTIFLOW_WEBHOOK_TIMEOUT_SECONDS=15.0", "(30)"),
    ({"NOTIFLOW_TEMPLATE_DEADLINE_SECONDS": "20"}, "NOTIFLOW_TEMPLATE_DEADLINE_SECONDS=20", "(30)"),
    ({"CELERY_TASK_TIME_LIMIT": "60"}, "CELERY_TASK_TIME_LIMIT=60", "NOTIFLOW_LEASE_SECONDS (60)"),
    ({"NOTIFLOW_WEBHOOK_MAX_ATTEMPTS": "0"}, "NOTIFLOW_WEBHOOK_MAX_ATTEMPTS=0", "at least 1"),
    ({"NOTIFLOW_DEFAULT_TIMEZONE": "Mars/Base"}, "NOTIFLOW_DEFAULT_TIMEZONE='Mars/Base'", "IANA"),
    ({"NOTIFLOW_RATE_LIMIT_TRIGGER": "lots"}, "NOTIFLOW_RATE_LIMIT_TRIGGER='lots'", "N/s"),
    ({"NOTIFLOW_LEASE_SECONDS": "1m"}, "NOTIFLOW_LEASE_SECONDS='1m' is not int", "1m"),
    ({"NOTIFLOW_PUSH_TIMEOUT_SECONDS": "ten"}, "NOTIFLOW_PUSH_TIMEOUT_SECONDS='ten'", "float"),
]


def settings_refusal(monkeypatch: pytest.MonkeyPatch, environment: dict[str, str]) -> str:
    """What the settings module refuses with under `environment` (on debug, so that no secret
    key is needed); fails the test when it starts."""
    monkeypatch.setenv("DJANGO_DEBUG", "1")
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    # The module sets the hook that prints its refusals in one line; this process keeps its own.
    monkeypatch.setattr(sys, "excepthook", sys.excepthook)
    with pytest.raises(ImproperlyConfigured) as refused:
        runpy.run_path(str(SETTINGS))
    return str(refused.value)


@pytest.mark.parametrize(("environment", "names", "limit"), CASES, ids=[c[1] for c in CASES])
def test_a_setting_out_of_bounds_is_refused_naming_it_its_value_and_the_limit(
    monkeypatch: pytest.MonkeyPatch, environment: dict[str, str], names: str, limit: str
) -> None:
    message = settings_refusal(monkeypatch, environment)
    assert message.startswith("refusing to start: "), message
    assert names in message and limit in message, message
    assert "\n" not in message


def test_the_settings_in_bounds_start(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DJANGO_DEBUG", "1")
    monkeypatch.setenv("NOTIFLOW_PUSH_TIMEOUT_SECONDS", "29")
    monkeypatch.setattr(sys, "excepthook", sys.excepthook)
    assert runpy.run_path(str(SETTINGS))["NOTIFLOW_PUSH_TIMEOUT_SECONDS"] == 29.0


def test_an_esp_request_waits_as_long_as_an_smtp_send_unless_told(monkeypatch) -> None:
    """anymail's own default (30 s) is the soft time limit itself: a threads worker could stop a
    step stuck on an ESP only by exiting (docs/operations/processes.md)."""
    monkeypatch.setenv("DJANGO_DEBUG", "1")
    monkeypatch.setenv("EMAIL_TIMEOUT", "7")
    monkeypatch.setattr(sys, "excepthook", sys.excepthook)
    assert runpy.run_path(str(SETTINGS))["ANYMAIL"]["REQUESTS_TIMEOUT"] == 7.0
    monkeypatch.setenv("ANYMAIL_REQUESTS_TIMEOUT", "4.5")
    assert runpy.run_path(str(SETTINGS))["ANYMAIL"]["REQUESTS_TIMEOUT"] == 4.5

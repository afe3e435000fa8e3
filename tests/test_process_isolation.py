"""Each pytest-xdist process has Redis databases of its own (tests/settings.py): its processes
inherit the environment of the one that started them, where the broker variable already holds
that one's database; a value the test settings derived is derived again per process, a value the
developer set (RabbitMQ) is kept, and beside RabbitMQ the cache and the counters stay on the
process's own Redis pair, not the development stack's 0/1."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DERIVED = "NOTIFLOW_TEST_DERIVED_CELERY_BROKER_URL"
PRINT = (
    "import tests.settings as s;"
    " print(s.CELERY_BROKER_URL, s.CACHES['default']['LOCATION'], s.NOTIFLOW_REDIS_URL)"
)
NAMES = ("CELERY_BROKER_URL", "NOTIFLOW_CACHE_URL", "NOTIFLOW_REDIS_URL")


def settings_in(**env: str) -> list[str]:
    """The broker and cache URLs that tests/settings.py gives a process started with `env`."""
    base = {k: v for k, v in os.environ.items() if not k.endswith(NAMES)}
    base.pop("PYTEST_XDIST_WORKER", None)
    base.pop("NOTIFLOW_TEST_SLOT", None)
    done = subprocess.run(
        [sys.executable, "-c", PRINT],
        cwd=ROOT,
        env={**base, **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return done.stdout.split()


def test_a_worker_started_by_another_test_process_gets_its_own_databases():
    first = settings_in()[:2]
    assert first == ["redis://127.0.0.1:6379/14", "redis://127.0.0.1:6379/15"]
    # What xdist hands its second process: the first one's environment, variable included.
    inherited = {"CELERY_BROKER_URL": first[0], DERIVED: first[0]}
    assert settings_in(PYTEST_XDIST_WORKER="gw1", **inherited)[:2] == [
        "redis://127.0.0.1:6379/10",
        "redis://127.0.0.1:6379/11",
    ]
    assert settings_in(PYTEST_XDIST_WORKER="gw2", NOTIFLOW_TEST_SLOT="3", **inherited)[:2] == [
        "redis://127.0.0.1:6393/6",
        "redis://127.0.0.1:6393/7",
    ]


def test_a_broker_the_developer_named_is_kept_in_every_process():
    named = "redis://127.0.0.1:6379/3"
    assert settings_in(CELERY_BROKER_URL=named, PYTEST_XDIST_WORKER="gw1")[0] == named


def test_beside_rabbitmq_the_cache_and_the_counters_stay_on_the_processs_own_redis():
    """Not on 0/1, where notiflow/settings.py puts them for a broker that is not Redis: the
    development stack's."""
    rabbitmq = "amqp://guest:guest@127.0.0.1:5672//"
    assert settings_in(CELERY_BROKER_URL=rabbitmq, PYTEST_XDIST_WORKER="gw1") == [
        rabbitmq,
        "redis://127.0.0.1:6379/11",
        "redis://127.0.0.1:6379/10",
    ]

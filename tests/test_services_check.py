"""`make run` / `make test` say exactly which service is down and how to start it."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "services.py"


def check(**env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(SCRIPT), "check"],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        timeout=30,
    )


def test_unreachable_postgres_names_the_url_and_how_to_start_it():
    url = "postgres://postgres@127.0.0.1:1/notiflow"
    result = check(DATABASE_URL=url)
    assert result.returncode == 1
    assert f"PostgreSQL at {url} cannot be reached" in result.stderr
    assert "docker compose up -d db redis" in result.stderr


def test_unreachable_redis_names_the_url():
    url = "redis://127.0.0.1:1/0"
    result = check(CELERY_BROKER_URL=url)
    assert result.returncode == 1 and f"Redis at {url} cannot be reached" in result.stderr


def test_running_services_pass():
    assert check().returncode == 0


@pytest.mark.slow  # a process that connects to RabbitMQ
def test_rabbitmq_as_the_broker_is_checked_and_redis_still_is():
    down = "amqp://guest:guest@127.0.0.1:1//"
    result = check(CELERY_BROKER_URL=down)
    assert result.returncode == 1 and f"RabbitMQ at {down} cannot be reached" in result.stderr
    assert "rabbitmq-server -detached" in result.stderr
    up = "amqp://guest:guest@127.0.0.1:5672//"
    assert check(CELERY_BROKER_URL=up).returncode == 0
    no_redis = check(CELERY_BROKER_URL=up, NOTIFLOW_CACHE_URL="redis://127.0.0.1:1/1")
    assert no_redis.returncode == 1 and "Redis at redis://127.0.0.1:1/1" in no_redis.stderr

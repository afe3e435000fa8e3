"""Flower's launcher and docker-compose.yml, checked by running them."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import requests
import yaml

from tests.conftest import TEST_BROKER_URL
from tests.support.smtp import free_port
from tests.support.stack import ROOT, wait_for

FLOWER = [sys.executable, str(ROOT / "scripts" / "flower.py")]


def flower_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("FLOWER_BASIC_AUTH", "DJANGO_DEBUG")}
    return {**env, "CELERY_BROKER_URL": TEST_BROKER_URL, **extra}


def test_flower_refuses_to_start_without_basic_auth_outside_debug():
    result = subprocess.run(FLOWER, env=flower_env(), capture_output=True, text=True, timeout=30)

    assert result.returncode != 0
    assert "refusing to start without FLOWER_BASIC_AUTH" in result.stderr


def test_flower_rejects_malformed_credentials():
    env = flower_env(FLOWER_BASIC_AUTH="just-a-password")
    result = subprocess.run(FLOWER, env=env, capture_output=True, text=True, timeout=30)

    assert result.returncode != 0 and "user:password" in result.stderr


def test_flower_serves_only_with_the_password_and_keeps_no_state(tmp_path):
    port = free_port()
    env = flower_env(FLOWER_BASIC_AUTH="ops:s3cret", FLOWER_PORT=str(port))
    log = (tmp_path / "flower.log").open("wb")
    process = subprocess.Popen(
        FLOWER, env=env, cwd=tmp_path, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
    )
    url = f"http://127.0.0.1:{port}/"
    try:

        def status() -> int | None:
            assert process.poll() is None, (tmp_path / "flower.log").read_text()
            try:
                return requests.get(url, timeout=2).status_code
            except requests.ConnectionError:
                return None

        assert wait_for(status, timeout=30, interval=0.2, message="flower to listen") == 401
        assert requests.get(url, auth=("ops", "wrong"), timeout=5).status_code == 401
        assert requests.get(url + "workers", auth=("ops", "s3cret"), timeout=5).status_code == 200
        # The password is not on the command line, where `ps` would show it.
        assert "s3cret" not in Path(f"/proc/{process.pid}/cmdline").read_text()
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=20)
    # --persistent=False: no shelve file where a persistent Flower would write one.
    assert not list(ROOT.glob("flower*")) and not list(tmp_path.glob("flower*.db"))


COMPOSE_SERVICES = {"db", "redis", "web", "worker", "beat", "flower", "mailpit"}


def test_compose_file_validates_and_runs_every_process_from_one_image():
    if shutil.which("docker-compose") is None:
        pytest.fail(
            "docker-compose is missing: `make test` installs it (apt-get install docker-compose)"
        )
    compose = ROOT / "docker-compose.yml"
    check = subprocess.run(
        ["docker-compose", "-f", str(compose), "config", "-q"],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "FLOWER_BASIC_AUTH": "a:b"},
    )
    assert check.returncode == 0, check.stderr

    resolved = subprocess.run(
        ["docker-compose", "-f", str(compose), "config"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout
    services = yaml.safe_load(resolved)["services"]
    assert set(services) >= COMPOSE_SERVICES
    for name in COMPOSE_SERVICES:
        assert "healthcheck" in services[name], name
    app = {"web", "worker", "beat", "flower"}
    assert {services[name]["image"] for name in app} == {"notiflow:dev"}
    assert all(services[name]["build"]["context"] == str(ROOT) for name in app)
    assert (ROOT / "Dockerfile").exists()
    assert services["flower"]["command"] == ["python", "scripts/flower.py"]
    assert (
        services["worker"]["environment"]["CELERY_BROKER_URL"]
        == (services["flower"]["environment"]["CELERY_BROKER_URL"])
    )

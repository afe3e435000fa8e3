"""Flower's launcher and docker-compose.yml, checked by running them."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import requests
import yaml

from tests.conftest import TEST_BROKER_URL
from tests.support.make_run import run
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


COMPOSE_SERVICES = {
    "db",
    "redis",
    "web",
    "worker",
    "worker-webhooks",
    "worker-sends",
    "worker-urgent",
    "beat",
    "flower",
    "mailpit",
}


# The variables compose refuses to start without; .env.example lists them (docs/security/deployment.md).
COMPOSE_SECRETS = {"DJANGO_SECRET_KEY": "k" * 50, "FLOWER_BASIC_AUTH": "ops:s3cret"}


def compose(*args: str, env_file: Path) -> subprocess.CompletedProcess:
    """`docker-compose config …` with `env_file` as its .env and none of the secrets inherited."""
    if shutil.which("docker-compose") is None:
        pytest.fail(
            "docker-compose is missing: `make test` installs it (apt-get install docker-compose)"
        )
    env = {k: v for k, v in os.environ.items() if k not in COMPOSE_SECRETS}
    compose_file = str(ROOT / "docker-compose.yml")
    return subprocess.run(
        ["docker-compose", "--env-file", str(env_file), "-f", compose_file, *args],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )


def filled_env_file(directory: Path, **values: str) -> Path:
    """.env.example with `values` filled in, as a developer's .env."""
    lines = []
    for line in (ROOT / ".env.example").read_text().splitlines():
        name = line.partition("=")[0]
        lines.append(f"{name}={values[name]}" if name in values else line)
    path = directory / "env"
    path.write_text("\n".join(lines) + "\n")
    return path


def compose_services(tmp_path: Path) -> dict[str, Any]:
    """docker-compose.yml as `docker-compose config` resolves it with a filled-in .env, after
    validating it."""
    env_file = filled_env_file(tmp_path, **COMPOSE_SECRETS)
    check = compose("config", "-q", env_file=env_file)
    assert check.returncode == 0, check.stderr
    resolved = compose("config", env_file=env_file)
    assert resolved.returncode == 0, resolved.stderr
    return dict(yaml.safe_load(resolved.stdout)["services"])


def published(service: dict[str, Any]) -> dict[int, tuple[str, int]]:
    """Container port -> (host address, host port), from either syntax docker-compose prints
    (v1: "127.0.0.1:55432:5432/tcp"; v2: {host_ip, published, target})."""
    ports = {}
    for port in service.get("ports", []):
        if isinstance(port, dict):
            ports[int(port["target"])] = (port.get("host_ip", ""), int(port["published"]))
        else:
            *host_ip, host_port, target = str(port).split("/")[0].rsplit(":", 2)
            ports[int(target)] = ("".join(host_ip), int(host_port))
    return ports


def test_compose_file_validates_and_runs_every_process_from_one_image(tmp_path):
    services = compose_services(tmp_path)
    assert set(services) >= COMPOSE_SERVICES
    for name in COMPOSE_SERVICES:
        assert "healthcheck" in services[name], name
    app = {"web", "worker", "worker-webhooks", "worker-sends", "worker-urgent", "beat", "flower"}
    assert {services[name]["image"] for name in app} == {"notiflow:dev"}
    assert all(services[name]["build"]["context"] == str(ROOT) for name in app)
    assert (ROOT / "Dockerfile").exists()
    assert services["flower"]["command"] == ["python", "scripts/flower.py"]
    # The webhook dispatcher's queue has a worker group of its own (NOTIFLOW_WEBHOOK_QUEUE).
    assert services["worker-webhooks"]["command"][3:6] == ["worker", "-Q", "webhooks"]
    # The send-heavy queue's threaded workers and the urgent queue's, as the Procfile's `sends` and
    # `urgent` (docs/operations).
    procfile = procfile_commands()
    for name in ("sends", "urgent"):
        assert " ".join(services[f"worker-{name}"]["command"]) == procfile[name]
    assert (
        services["worker"]["environment"]["CELERY_BROKER_URL"]
        == (services["flower"]["environment"]["CELERY_BROKER_URL"])
    )


def procfile_commands() -> dict[str, str]:
    """The Procfile's processes by name, read as `make run` reads them."""
    return dict(run.procfile_processes((ROOT / "Procfile").read_text()))


@pytest.mark.parametrize("name", ["webhooks", "sends", "urgent"])
def test_the_docs_quote_each_worker_group_as_the_procfile_starts_it(name):
    """Wherever the docs give a worker group's command on one line, it is the Procfile's (its
    log level aside)."""
    expected = procfile_commands()[name].replace(" --loglevel=INFO", "")
    docs = [path.read_text() for path in sorted((ROOT / "docs").rglob("*.md"))]
    quoted = {
        found.strip()
        for text in docs
        for found in re.findall(rf"celery -A notiflow worker[^`\n]*-n {name}@%h[^`\n]*", text)
    }
    assert quoted == {expected}


def test_every_compose_process_records_metrics_into_one_shared_volume(tmp_path):
    """The web's /metrics reads the files every process writes (common/metrics.py): each
    process of the image has the same NOTIFLOW_METRICS_DIR, on the same named volume."""
    services = compose_services(tmp_path)
    app = {name: s for name, s in services.items() if s.get("image") == "notiflow:dev"}
    assert set(app) >= {"web", "worker", "worker-webhooks", "beat", "migrate", "flower"}
    directories = {s["environment"].get("NOTIFLOW_METRICS_DIR") for s in app.values()}
    (directory,) = directories
    assert directory and directory.startswith("/")
    for name, service in app.items():
        mounts = [mounted(volume) for volume in service.get("volumes", [])]
        assert ("volume", "metrics", directory) in mounts, (name, mounts)
    assert "metrics" in yaml.safe_load((ROOT / "docker-compose.yml").read_text())["volumes"]
    assert "mkdir -p /var/lib/notiflow/metrics" in (ROOT / "Dockerfile").read_text()
    # The endpoint stays off until .env sets the token.
    assert services["web"]["environment"]["NOTIFLOW_METRICS_TOKEN"] == ""


def mounted(volume: Any) -> tuple[str, str, str]:
    """(type, source, target) of a volume, from either syntax docker-compose prints."""
    if isinstance(volume, dict):
        return volume["type"], volume["source"], volume["target"]
    source, target = str(volume).split(":")[:2]  # v1: "metrics:/var/lib/notiflow/metrics:rw"
    return ("bind" if "/" in source else "volume"), source, target


def test_compose_db_and_redis_leave_the_local_ports_free_and_match_the_readme_fallback(tmp_path):
    services = compose_services(tmp_path)
    db_host, db_port = published(services["db"])[5432]
    redis_host, redis_port = published(services["redis"])[6379]
    # Published on loopback only, and not on the ports a local PostgreSQL and Redis use.
    assert (db_host, redis_host) == ("127.0.0.1", "127.0.0.1")
    assert db_port != 5432 and redis_port != 6379
    for name, service in services.items():
        assert all(host == "127.0.0.1" for host, _ in published(service).values()), name

    # The fallback for `make run` (docs/guide/run-locally.md, linked from the README's quick
    # start) reaches compose's database as compose creates it.
    readme = (ROOT / "docs" / "guide" / "run-locally.md").read_text()
    fallback = readme[readme.index("docker compose up -d db redis") :]
    database_url = re.search(r"DATABASE_URL=(\S+)", fallback)
    broker_url = re.search(r"CELERY_BROKER_URL=(\S+)", fallback)
    assert database_url and broker_url
    database, db = urlsplit(database_url[1]), services["db"]["environment"]
    assert (database.username, database.password) == (db["POSTGRES_USER"], db["POSTGRES_PASSWORD"])
    assert (database.hostname, database.port) == (db_host, db_port)
    assert database.path == f"/{db['POSTGRES_DB']}"
    broker = urlsplit(broker_url[1])
    assert (broker.hostname, broker.port) == (redis_host, redis_port)
    # make run says the same when it cannot reach PostgreSQL or Redis.
    hint = (ROOT / "scripts" / "run_setup.py").read_text()
    assert database_url[1] in hint and broker_url[1] in hint


def test_compose_takes_its_secrets_from_the_env_file_and_ships_none(tmp_path):
    services = compose_services(tmp_path)
    for name in ("web", "worker", "beat", "flower", "migrate"):
        assert services[name]["environment"]["DJANGO_SECRET_KEY"] == "k" * 50, name
    assert services["flower"]["environment"]["FLOWER_BASIC_AUTH"] == "ops:s3cret"
    # Flower's healthcheck logs in: /healthcheck needs the login too (scripts/flower.py).
    assert "FLOWER_BASIC_AUTH" in " ".join(services["flower"]["healthcheck"]["test"])


@pytest.mark.parametrize(
    "missing", [("DJANGO_SECRET_KEY",), ("FLOWER_BASIC_AUTH",), tuple(COMPOSE_SECRETS)]
)
def test_compose_refuses_to_start_without_its_secrets_and_says_where_they_go(tmp_path, missing):
    given = {name: value for name, value in COMPOSE_SECRETS.items() if name not in missing}
    result = compose("config", "-q", env_file=filled_env_file(tmp_path, **given))
    assert result.returncode != 0
    assert any(name in result.stderr for name in missing), result.stderr
    assert "set it in .env (see .env.example)" in result.stderr


def test_an_unedited_copy_of_env_example_is_refused(tmp_path):
    (tmp_path / "env").write_text((ROOT / ".env.example").read_text())
    result = compose("config", "-q", env_file=tmp_path / "env")
    assert result.returncode != 0 and ".env.example" in result.stderr


def test_env_example_names_every_variable_compose_requires():
    required = set(re.findall(r"\$\{(\w+):\?", (ROOT / "docker-compose.yml").read_text()))
    example = (ROOT / ".env.example").read_text()
    assert required == set(COMPOSE_SECRETS)
    for name in required:
        assert re.search(rf"^{name}=$", example, re.M), name

"""`make run` (scripts/run.py), the web process's address (notiflow/gunicorn_conf.py), and the
README and design doc that describe them. Starting `make run` for real is
tests/support/make_run.py's, which tests/ops/test_docs_runnable.py shares."""

from __future__ import annotations

import fnmatch
import json
import os
import re
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
import requests
from django.conf import settings
from psycopg import sql

from bench.infra import rabbitmq_vhost_delete, rabbitmq_vhost_reset
from notiflow.gunicorn_conf import web_bind
from tests.conftest import TEST_BROKER_URL
from tests.factories import chain, delay_node
from tests.support.make_run import (
    RUN_DATABASE,
    RUN_SCRIPT,
    RUN_VHOST,
    clean_env,
    database_exists,
    make_run,
    run,
    run_database,
    server_url,
    sibling_broker_url,
)
from tests.support.smtp import free_port
from tests.support.stack import ROOT, wait_for


@pytest.fixture
def occupied() -> Iterator[int]:
    """A loopback port something already listens on."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        yield listener.getsockname()[1]


# --- where the web process listens -------------------------------------------------------------


@pytest.mark.parametrize(
    ("env", "bind"),
    [
        ({}, "127.0.0.1:8000"),
        ({"PORT": "5000"}, "127.0.0.1:5000"),  # honcho's PORT stays on loopback
        ({"PORT": "5000", "NOTIFLOW_HOST": "0.0.0.0"}, "0.0.0.0:5000"),  # noqa: S104 (a platform's)
        ({"PORT": "5000", "NOTIFLOW_HOST": "::"}, "[::]:5000"),
        ({"PORT": "5000", "NOTIFLOW_BIND": "127.0.0.1:9000"}, "127.0.0.1:9000"),
        ({"NOTIFLOW_BIND": "unix:/run/notiflow.sock"}, "unix:/run/notiflow.sock"),
    ],
)
def test_web_binds_notiflow_bind_else_port_on_loopback_unless_notiflow_host_says(env, bind):
    assert web_bind(env) == bind


@pytest.mark.parametrize("port", ["http", "0", "70000", "-1"])
def test_a_port_that_is_not_a_port_is_refused(port):
    with pytest.raises(ValueError, match="PORT must be a TCP port number"):
        web_bind({"PORT": port})


def test_gunicorn_reads_its_address_from_the_environment(tmp_path):
    port = free_port()
    env = clean_env(PORT=str(port), DJANGO_STATIC_ROOT=str(tmp_path))
    gunicorn = str(Path(sys.executable).parent / "gunicorn")
    printed = subprocess.run(
        [gunicorn, "-c", "python:notiflow.gunicorn_conf", "--print-config", "notiflow.asgi"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert printed.returncode == 0, printed.stderr
    assert re.search(rf"^bind\s+= \['127\.0\.0\.1:{port}'\]$", printed.stdout, re.M)


# --- make run's ports and processes ------------------------------------------------------------


def test_a_taken_default_port_gives_way_to_the_next_free_one(occupied):
    port, note = run.choose_port(
        "flower", "127.0.0.1", occupied, variable="FLOWER_PORT", explicit=False
    )

    assert port > occupied and run.port_free("127.0.0.1", port)
    assert note == f"{occupied} was taken; set FLOWER_PORT to choose"


def test_a_taken_port_that_was_asked_for_stops_make_run_naming_it(occupied):
    with pytest.raises(SystemExit, match=rf"127\.0\.0\.1:{occupied} for web \(PORT\) is already"):
        run.choose_port("web", "127.0.0.1", occupied, variable="PORT", explicit=True)


def test_make_run_stops_on_a_taken_port_before_touching_the_database(occupied, tmp_path):
    env = clean_env(
        PORT=str(occupied),
        NOTIFLOW_RUN_DIR=str(tmp_path),
        DATABASE_URL="postgres://postgres@127.0.0.1:1/nowhere",
    )
    result = subprocess.run(
        [sys.executable, str(RUN_SCRIPT)], env=env, capture_output=True, text=True, timeout=60
    )

    assert result.returncode != 0
    assert f"127.0.0.1:{occupied} for web (PORT) is already in use" in result.stderr
    assert "PostgreSQL" not in result.stderr + result.stdout


def test_an_unknown_broker_name_stops_make_run_naming_the_choices(tmp_path):
    env = clean_env(NOTIFLOW_BROKER="kafka", NOTIFLOW_RUN_DIR=str(tmp_path))
    result = subprocess.run(
        [sys.executable, str(RUN_SCRIPT)], env=env, capture_output=True, text=True, timeout=60
    )

    assert result.returncode == 2
    assert "NOTIFLOW_BROKER must be one of redis, rabbitmq, not 'kafka'" in result.stderr


def test_make_run_starts_the_procfile_and_a_mail_catcher_that_email_url_points_at(tmp_path):
    ports = {name: free_port() for name in ("web", "flower", "smtp", "mail")}
    env = clean_env(
        PORT=str(ports["web"]),
        FLOWER_PORT=str(ports["flower"]),
        NOTIFLOW_MAIL_SMTP_PORT=str(ports["smtp"]),
        NOTIFLOW_MAIL_WEB_PORT=str(ports["mail"]),
    )
    plan = run.plan(env, tmp_path)

    names = [name for name, _ in run.procfile_processes(plan.procfile)]
    assert names == ["web", "worker", "webhooks", "sends", "urgent", "beat", "flower", "mail"]
    assert plan.env["EMAIL_URL"] == f"smtp://127.0.0.1:{ports['smtp']}"
    assert plan.env["NOTIFLOW_BIND"] == f"127.0.0.1:{ports['web']}"
    assert plan.env["NOTIFLOW_FLOWER_URL"] == f"http://127.0.0.1:{ports['flower']}/"
    assert {listener.name: listener.port for listener in plan.listeners} == ports


def test_with_email_url_set_no_catcher_starts_and_the_banner_says_where_mail_goes(tmp_path):
    env = clean_env(
        PORT=str(free_port()), FLOWER_PORT=str(free_port()), EMAIL_URL="smtp://mail.example:25"
    )
    plan = run.plan(env, tmp_path)

    assert "mail" not in dict(run.procfile_processes(plan.procfile))
    text = run.banner(
        plan, password="pw", key="nf_key", sms_file="sms.jsonl", env_file=tmp_path, silent=[]
    )
    assert "Mail      sent through EMAIL_URL=smtp://mail.example:25 (no catcher started)" in text


# --- make manage: make run's environment for commands run by hand -----------------------------


def test_the_env_file_exports_what_configures_notiflow_and_a_shell_reads_it_back(tmp_path):
    env = {
        "DJANGO_SECRET_KEY": 'k$ey\'with "quotes" and $(no command)',
        "DATABASE_URL": "postgres://notiflow@127.0.0.1:5432/notiflow",
        "CELERY_BROKER_URL": "redis://127.0.0.1:6379/0",
        "EMAIL_URL": "smtp://127.0.0.1:1025",
        "NOTIFLOW_SMS_FILE": "/home/you/notiflow/.run/sms.jsonl",
        "DEFAULT_FROM_EMAIL": "Acme <no-reply@example.com>",
        "ANYMAIL_WEBHOOK_SECRET": "tracking:pw",
        "PATH": "/usr/bin",
        "HOME": "/home/you",
    }
    path = run.env_file_write(env, tmp_path)

    assert path == tmp_path / "env" and path.stat().st_mode & 0o777 == 0o600
    shell = subprocess.run(
        ["sh", "-c", f'. "{path}" && env -0'],
        env={"PATH": os.environ["PATH"]},
        capture_output=True,
        text=True,
        check=True,
    )
    read_back = dict(item.split("=", 1) for item in shell.stdout.split("\0") if "=" in item)
    configured = {name: value for name, value in env.items() if name not in ("PATH", "HOME")}
    assert {name: read_back.get(name) for name in configured} == configured
    assert "HOME=" not in path.read_text() and "PATH=" not in path.read_text()


@pytest.mark.django_db
def test_a_restart_keeps_the_operators_admin_session_and_the_password_they_set(client, monkeypatch):
    # Issue 44: every make run set the admin's password again, which logged the operator out.
    monkeypatch.syspath_prepend(str(ROOT / "scripts"))
    import run_setup

    assert run_setup.admin_user_ensure("first-password")
    assert client.login(username="admin", password="first-password")
    assert client.get("/admin/").status_code == 200
    assert run_setup.admin_user_ensure("first-password")
    assert client.get("/admin/").status_code == 200  # the session still holds

    from django.contrib.auth import get_user_model

    admin = get_user_model().objects.get(username="admin")
    admin.set_password("chosen-by-the-operator")
    admin.save()
    assert not run_setup.admin_user_ensure("first-password")
    admin.refresh_from_db()
    assert admin.check_password("chosen-by-the-operator")


def test_make_run_writes_its_env_file_and_its_banner_says_how_to_use_it(tmp_path):
    env = clean_env(PORT=str(free_port()), FLOWER_PORT=str(free_port()), EMAIL_URL="smtp://x:25")
    plan = run.plan(env, tmp_path)
    path = run.env_file_write(plan.env, tmp_path)

    assert f"export NOTIFLOW_BIND={plan.env['NOTIFLOW_BIND']}" in path.read_text()
    text = run.banner(plan, password="pw", key="k", sms_file="s", env_file=path, silent=[])
    assert f'Commands  make manage ARGS="notiflow_stats"   (or in a shell: . {path};' in text


def make_manage(run_dir: Path, args: str) -> subprocess.CompletedProcess[str]:
    venv = Path(sys.executable).parent.parent  # no install: `manage` does not depend on it
    return subprocess.run(
        ["make", "-s", "manage", f"VENV={venv}", f"NOTIFLOW_RUN_DIR={run_dir}", f"ARGS={args}"],
        cwd=ROOT,
        env={k: v for k, v in os.environ.items() if k != "MAKEFLAGS"},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_make_manage_runs_manage_py_with_make_runs_environment(tmp_path):
    db = settings.DATABASES["default"]
    secret = "make-manage-" + "s" * 50
    run.env_file_write(
        {
            "DJANGO_SETTINGS_MODULE": "notiflow.settings",
            "DJANGO_SECRET_KEY": secret,
            "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/nowhere_{secret}",
            "CELERY_BROKER_URL": TEST_BROKER_URL,
        },
        tmp_path,
    )
    done = make_manage(tmp_path, "diffsettings")

    assert done.returncode == 0, done.stderr
    assert f"SECRET_KEY = '{secret}'" in done.stdout  # the file's, not this process's
    assert f"nowhere_{secret}" in done.stdout


def test_make_manage_before_make_run_says_to_run_it_first(tmp_path):
    done = make_manage(tmp_path, "check")

    assert done.returncode != 0
    assert f"make manage: no {tmp_path}/env: run make run first, which writes it" in done.stderr


# --- make run, for real ------------------------------------------------------------------------


def descendants(pid: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # gone meanwhile
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    found, frontier = [], [pid]
    while frontier:
        for child in children.get(frontier.pop(), []):
            found.append(child)
            frontier.append(child)
    return found


def process_environ(pid: int) -> dict[str, str]:
    raw = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    return dict(item.decode().split("=", 1) for item in raw if b"=" in item)


def test_make_runs_database_left_by_a_killed_run_is_dropped_first_and_after_a_failure():
    """A run SIGKILLed before its cleanup left its database (with its workflows) behind; the
    next starts without it, and one that fails drops its own."""
    with psycopg.connect(server_url("postgres"), autocommit=True) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {}").format(sql.Identifier(RUN_DATABASE)))
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(RUN_DATABASE)))
    assert database_exists(RUN_DATABASE)

    with pytest.raises(RuntimeError), run_database() as url:
        assert url.endswith(f"/{RUN_DATABASE}")
        assert not database_exists(RUN_DATABASE)  # the leftover is gone: make run creates it
        with psycopg.connect(server_url("postgres"), autocommit=True) as conn:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(RUN_DATABASE)))
        raise RuntimeError("the test failed")
    assert not database_exists(RUN_DATABASE)


@pytest.fixture(params=["redis", pytest.param("rabbitmq", marks=pytest.mark.rabbitmq)])
def run_broker(request) -> Iterator[dict[str, str]]:
    """make run's broker: a Redis database next to the tests' own, or (NOTIFLOW_BROKER=rabbitmq)
    a RabbitMQ vhost of this test's, with Redis staying as the cache. Either way, not the
    broker of the end-to-end stack, which may be running in this same session."""
    if request.param == "redis":
        yield {"CELERY_BROKER_URL": sibling_broker_url()}
        return
    rabbitmq_vhost_reset(RUN_VHOST)
    yield {
        "NOTIFLOW_BROKER": "rabbitmq",
        "CELERY_BROKER_URL": f"amqp://guest:guest@127.0.0.1:5672/{RUN_VHOST}",
        "NOTIFLOW_CACHE_URL": sibling_broker_url(),
        "NOTIFLOW_REDIS_URL": sibling_broker_url(),
    }
    rabbitmq_vhost_delete(RUN_VHOST)


@pytest.mark.e2e
@pytest.mark.alone  # make run's database and vhost are the slot's: one make run at a time
@pytest.mark.timeout(400)
def test_make_run_prints_the_urls_it_bound_and_the_mail_page_shows_the_demo_email(
    tmp_path, run_broker
):
    # The README's tour and the tutorial run against make run in tests/ops/test_docs_runnable.py.
    with run_database() as database, make_run(tmp_path, database, run_broker) as instance:
        web, mail, log, ports = instance.web, instance.mail, instance.log, instance.ports
        password, key, run_dir = instance.password, instance.key, instance.run_dir
        assert f"Admin     {web}/admin/   user admin, password {password}" in log
        assert f"Flower    http://127.0.0.1:{ports['flower']}/" in log
        assert f"Mail      {mail}   every email the workers send" in log
        assert f"(SMTP 127.0.0.1:{ports['smtp']}, " in log
        assert "NOT ANSWERING" not in log
        assert "NOT READY" not in log  # every worker group registered: no 503 for the curl

        # Every URL answers from the moment the banner is shown.
        health = requests.get(
            f"{web}/api/health/", headers={"Authorization": f"Bearer {key}"}, timeout=10
        ).json()
        assert health["database"]["ok"] is True and health["broker"]["ok"] is True
        flower = f"http://127.0.0.1:{ports['flower']}/"
        assert requests.get(flower, timeout=10).status_code == 401
        assert requests.get(flower, auth=("admin", password), timeout=10).status_code == 200
        assert requests.get(mail, timeout=10).status_code == 200
        gunicorn = [
            pid
            for pid in descendants(instance.process.pid)
            if b"gunicorn" in Path(f"/proc/{pid}/cmdline").read_bytes()
        ]
        assert gunicorn, "no gunicorn among make run's processes"
        assert process_environ(gunicorn[0])["NOTIFLOW_FLOWER_URL"] == flower
        assert process_environ(gunicorn[0])["CELERY_BROKER_URL"] == run_broker["CELERY_BROKER_URL"]
        secret_key = (run_dir / "secret-key").read_text().strip()
        assert process_environ(gunicorn[0])["DJANGO_SECRET_KEY"] == secret_key

        # The banner's first step: fire the demo workflow, then find its email on the mail page.
        body = {
            "workflow": "welcome",
            "idempotency_key": "make-run-test",
            "payload": {"email": "ann@example.com", "name": "Ann", "phone": "+15550100"},
        }
        headers = {"Authorization": f"Bearer {key}"}
        created = requests.post(f"{web}/api/triggers/", json=body, headers=headers, timeout=10)
        assert created.status_code == 201, created.text

        def listed() -> bool:
            return "Welcome to Acme, Ann!" in requests.get(mail, timeout=10).text

        wait_for(listed, timeout=60, interval=0.5, message="the demo email on the mail page")
        [eml] = list((run_dir / "mail").glob("*.eml"))
        assert b"<" + created.json()["id"].encode() + b".welcome_email@" in eml.read_bytes()

        # A workflow keyed `urgent.<name>` runs on the Procfile's `urgent` worker, the only one
        # that serves its queue (intake answers 503 for a queue no live worker serves).
        assert set(health["workers"]["queues"]) >= {"default", "webhooks", "sends", "urgent"}
        code = {"key": "urgent.code", "name": "A code", **chain(delay_node("wait", delay_ms=0))}
        made = requests.post(f"{web}/api/workflows/", json=code, headers=headers, timeout=10)
        assert made.status_code == 201 and made.json()["queue"] == "urgent", made.text
        body = {"workflow": "urgent.code", "idempotency_key": "make-run-urgent", "payload": {}}
        fired = requests.post(f"{web}/api/triggers/", json=body, headers=headers, timeout=10)
        assert fired.status_code == 201, fired.text
        run_url = f"{web}/api/triggers/{fired.json()['id']}/"

        def completed() -> bool:
            run = requests.get(run_url, headers=headers, timeout=10).json()
            return run["status"] == "completed"

        wait_for(completed, timeout=60, interval=0.5, message="the urgent run completed")

        # A command by hand reaches this instance through the environment make run wrote (its
        # database holds the demo workflow; the tests' own does not).
        assert "Commands  make manage ARGS=" in log
        stats = make_manage(run_dir, "notiflow_stats --workflow welcome --json")
        assert stats.returncode == 0, stats.stderr
        assert json.loads(stats.stdout)["workflow"] == "welcome"


# --- the README and the design doc -------------------------------------------------------------


def readme() -> str:
    return (ROOT / "README.md").read_text()


def design(page: str) -> str:
    """A page of the design (docs/design/<page>.md)."""
    return (ROOT / "docs" / "design" / f"{page}.md").read_text()


def section(text: str, heading: str) -> str:
    """The body of the markdown section `heading` (up to the next heading of its level)."""
    level = heading.split(" ", 1)[0]
    start = text.index(heading + "\n") + len(heading) + 1
    following = re.search(rf"^{level} ", text[start:], re.M)
    return text[start : start + following.start()] if following else text[start:]


def test_readme_says_make_test_installs_system_packages_with_apt_get_as_root():
    makefile = (ROOT / "Makefile").read_text()
    test_target = re.search(r"^test: (.*)$", makefile, re.M)
    assert test_target and "test-tools" in test_target[1].split()
    test_tools = re.search(r"^test-tools:\n((?:\t.*\n)+)", makefile, re.M)
    assert test_tools and "apt-get install" in test_tools[1] and 'id -u)" = 0' in test_tools[1]

    quick_start = section(readme(), "## Quick start")
    assert "make test-tools" in quick_start
    assert "apt-get" in quick_start and "root" in quick_start
    assert "chromium" in quick_start and "docker-compose" in quick_start


def test_readme_points_at_the_projects_own_design_doc_and_nothing_outside_the_repository():
    assert "(docs/design/index.md)" in readme() and "(docs/design/glossary.md)" in readme()
    outside = ".." + "/shared"
    patterns = ("*.md", "*.py", "*.yml", "*.toml", "Makefile", "Procfile", "Dockerfile")
    offenders = []
    for directory, subdirectories, names in os.walk(ROOT):
        # Not into .venv, .git and the like (walked whole, they were most of this test's second).
        subdirectories[:] = [
            name
            for name in subdirectories
            if not name.startswith(".") and name not in ("staticfiles", "artifacts")
        ]
        for name in names:
            path = Path(directory) / name
            if (
                not name.startswith(".")
                and any(fnmatch.fnmatch(name, pattern) for pattern in patterns)
                and outside in path.read_text(errors="replace")
            ):
                offenders.append(str(path.relative_to(ROOT)))
    assert offenders == []


GLOSSARY = (
    "nudge",
    "sweeper",
    "lease",
    "lease token",
    "cursor",
    "fencing",
    "send ledger",
    "step log",
    "outbox",
)


@pytest.mark.parametrize("term", GLOSSARY)
def test_the_glossary_explains_each_word_the_docs_use(term):
    glossary = section(design("glossary"), "# Glossary")
    entry = re.search(
        rf"^- \*\*{re.escape(term)}\*\*[^:]*: (.+?)(?=^- \*\*|\Z)", glossary, re.M | re.S
    )
    assert entry, f"no glossary entry for {term!r}"
    assert len(entry[1].split()) >= 8, f"the entry for {term!r} explains nothing"


def test_design_doc_keeps_the_numbers_of_the_architecture_rules():
    rules = section(design("rules"), "# Architecture rules")
    assert [int(n) for n in re.findall(r"^(\d+)\. \*\*", rules, re.M)] == list(range(1, 21))

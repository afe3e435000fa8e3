"""`make run` (scripts/run.py) for real, as a newcomer starts it, and the runnable blocks of the
docs run against it as a newcomer pastes them.

tests/ops/test_make_run.py checks the instance itself (its banner, URLs, processes, Ctrl-C);
tests/ops/test_docs_runnable.py runs the README's tour and docs/tutorial.md against one. A block
is runnable when its ```sh fence follows a `<!-- runnable -->` line; the blocks of a page run in
order in one shell (a variable set in one is there in the next), at the addresses the docs write
(`make run`'s defaults) rewritten to the ones this instance bound."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from urllib.parse import urlsplit, urlunsplit

import psycopg
from django.conf import settings
from psycopg import sql

from tests.conftest import TEST_BROKER_URL
from tests.settings import TEST_SLOT
from tests.support.smtp import free_port
from tests.support.stack import ROOT, wait_for

RUN_SCRIPT = ROOT / "scripts" / "run.py"
# What make run reads; a test sets what it needs and inherits none of the developer's values.
RUN_VARIABLES = (
    "PORT",
    "NOTIFLOW_BIND",
    "NOTIFLOW_HOST",
    "FLOWER_PORT",
    "FLOWER_ADDRESS",
    "FLOWER_BASIC_AUTH",
    "NOTIFLOW_FLOWER_URL",
    "EMAIL_URL",
    "NOTIFLOW_MAIL_SMTP_PORT",
    "NOTIFLOW_MAIL_WEB_PORT",
    "NOTIFLOW_RUN_DIR",
    "NOTIFLOW_SMS_BACKEND",
    "NOTIFLOW_SMS_FILE",
)
# The addresses the docs write: make run's defaults.
DOCS_WEB, DOCS_MAIL = "http://127.0.0.1:8000", "http://127.0.0.1:8025"
RUNNABLE = "<!-- runnable -->"
# Per test slot, as the tests' own database and Redis: two checkouts never share them.
RUN_DATABASE = f"test_notiflow_make_run_{TEST_SLOT}"
RUN_VHOST = f"notiflow_make_run_test_{TEST_SLOT}"


def load_run_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("make_run_script", RUN_SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


run = load_run_script()


def clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in RUN_VARIABLES}
    return {**env, "DJANGO_SETTINGS_MODULE": "notiflow.settings", **extra}


def server_url(database: str) -> str:
    db = settings.DATABASES["default"]
    return f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{database}"


@contextmanager
def run_database() -> Iterator[str]:
    """The URL of make run's database in a test (it creates it): dropped first, since a run
    killed before its cleanup (SIGKILL, a timeout) leaves it behind, and make run would start on
    that run's data (the docs' tour then gets a 409 creating its workflow); and dropped
    afterwards, whether the test passed or not."""
    _drop(RUN_DATABASE)
    try:
        yield server_url(RUN_DATABASE)
    finally:
        _drop(RUN_DATABASE)


def database_exists(database: str) -> bool:
    with psycopg.connect(server_url("postgres"), autocommit=True) as conn:
        found = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [database])
        return found.fetchone() is not None


def _drop(database: str) -> None:
    with psycopg.connect(server_url("postgres"), autocommit=True) as conn:
        conn.execute(
            sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(database))
        )


def sibling_broker_url() -> str:
    """A Redis database next to the tests' own: make run's worker must not eat the nudges of the
    end-to-end stack, which may be running in this same session."""
    parts = urlsplit(TEST_BROKER_URL)
    number = int(parts.path.strip("/") or 0)
    return urlunsplit(parts._replace(path=f"/{number - 2}"))


@dataclass
class Instance:
    """A running `make run`: its process, its .run directory and what its banner said."""

    process: subprocess.Popen
    run_dir: Path
    ports: dict[str, int]
    log: str  # the output up to the banner

    @property
    def web(self) -> str:
        return f"http://127.0.0.1:{self.ports['web']}"

    @property
    def mail(self) -> str:
        return f"http://127.0.0.1:{self.ports['mail']}/"

    @property
    def password(self) -> str:
        return (self.run_dir / "admin-password").read_text().strip()

    @property
    def key(self) -> str:
        return (self.run_dir / "api-key").read_text().strip()


@contextmanager
def make_run(tmp_path: Path, database_url: str, broker: dict[str, str]) -> Iterator[Instance]:
    """`make run` on free ports with its .run directory at tmp_path/.run, once its banner is
    shown (every process answers); Ctrl-C afterwards, and every port it bound is free again."""
    ports = {name: free_port() for name in ("web", "flower", "smtp", "mail")}
    run_dir = tmp_path / ".run"
    env = clean_env(
        DATABASE_URL=database_url,
        **broker,
        PORT=str(ports["web"]),
        FLOWER_PORT=str(ports["flower"]),
        NOTIFLOW_MAIL_SMTP_PORT=str(ports["smtp"]),
        NOTIFLOW_MAIL_WEB_PORT=str(ports["mail"]),
        NOTIFLOW_RUN_DIR=str(run_dir),
        DJANGO_STATIC_ROOT=str(tmp_path / "static"),
        PYTHONUNBUFFERED="1",
    )
    env.pop("DJANGO_SECRET_KEY", None)  # make run makes its own
    log_path = tmp_path / "make-run.log"
    process = subprocess.Popen(
        [sys.executable, str(RUN_SCRIPT)],
        cwd=ROOT,
        env=env,
        stdout=log_path.open("wb"),
        stderr=subprocess.STDOUT,
        start_new_session=True,  # a process group of its own, as a terminal's Ctrl-C reaches it
    )
    try:

        def banner() -> str:
            log = log_path.read_text(errors="replace")
            assert process.poll() is None, log[-5000:]
            return log if "Fire the demo workflow" in log else ""

        log = wait_for(banner, timeout=240, interval=0.5, message="make run's banner")
        yield Instance(process, run_dir, ports, log)
    except BaseException:
        print(log_path.read_text(errors="replace")[-8000:])
        raise
    finally:
        os.killpg(process.pid, signal.SIGINT)  # Ctrl-C
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)
    # Ctrl-C stopped every process: nothing answers any more.
    for port in ports.values():
        assert run.port_free("127.0.0.1", port), port


def runnable_blocks(text: str) -> list[str]:
    """The shell blocks of a page marked runnable (the ```sh fence after `<!-- runnable -->`)."""
    return re.findall(rf"^{re.escape(RUNNABLE)}\n```sh\n(.*?)^```", text, re.S | re.M)


def run_blocks(blocks: list[str], instance: Instance, cwd: Path) -> list[str]:
    """Run `blocks` in order in one bash (-e, -u, pipefail: the first failing command stops it)
    from `cwd`, where `.run` is the instance's; each block's output, or an assertion naming the
    block that failed and its stderr."""
    script = "".join(
        f"printf '\\n::block {number}::\\n'\n"
        + block.replace(DOCS_WEB, instance.web).replace(DOCS_MAIL, instance.mail.rstrip("/"))
        for number, block in enumerate(blocks, 1)
    )
    ran = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )
    outputs = re.split(r"^::block \d+::\n", ran.stdout, flags=re.M)[1:]
    assert ran.returncode == 0, (
        f"block {len(outputs)} of {len(blocks)} exited {ran.returncode}:\n"
        f"{blocks[len(outputs) - 1] if outputs else ''}\n{ran.stdout[-2000:]}\n{ran.stderr}"
    )
    assert len(outputs) == len(blocks)
    return outputs


def json_documents(text: str) -> list[dict]:
    """The JSON documents curl printed one after another."""
    decoder, documents, at = json.JSONDecoder(), [], 0
    while (at := len(text) - len(text[at:].lstrip())) < len(text):
        document, at = decoder.raw_decode(text, at)
        documents.append(document)
    return documents

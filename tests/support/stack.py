"""Real processes for end-to-end tests: gunicorn, Celery workers and beat, on the test database.

Every process runs the production settings module (notiflow.settings), configured only through
the environment, exactly as the Procfile runs them.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import requests
from django.conf import settings

from tests.support.databases import database_drop, database_from_template
from tests.support.smtp import free_port

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


def wait_for(
    predicate: Callable[[], Any], *, timeout: float, interval: float = 0.05, message: str = ""
) -> Any:
    """Poll `predicate` until it returns something truthy; fail after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s: {message or predicate}")
        time.sleep(interval)


@dataclass
class Process:
    name: str
    popen: subprocess.Popen
    log_path: Path
    signalled: int | None = None

    def terminate(self, sig: int = signal.SIGTERM) -> None:
        """Send `sig` to its process group, once (stop() does not send it again)."""
        if self.popen.poll() is None and self.signalled != sig:
            os.killpg(self.popen.pid, sig)
            self.signalled = sig

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 10) -> None:
        if self.popen.poll() is not None:
            return
        self.terminate(sig)
        try:
            self.popen.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            # Still running: a Celery worker writes every thread's stack to its log on SIGUSR1
            # (Celery's "cry" handler), so the log says where it hung before it is killed.
            if "celery" in " ".join(map(str, self.popen.args)):
                os.kill(self.popen.pid, signal.SIGUSR1)
                with contextlib.suppress(subprocess.TimeoutExpired):
                    self.popen.wait(timeout=2)
            os.killpg(self.popen.pid, signal.SIGKILL)
            self.popen.wait(timeout=timeout)

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""


@dataclass
class Stack:
    env: dict[str, str]
    workdir: Path
    processes: list[Process] = field(default_factory=list)
    base_url: str = ""

    def spawn(self, name: str, argv: list[str], extra_env: dict[str, str] | None = None) -> Process:
        log_path = self.workdir / f"{name}.log"
        log = log_path.open("ab")
        env = {**self.env, **(extra_env or {})}
        # This checkout's code first, whatever the virtualenv's editable install points at.
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
        popen = subprocess.Popen(
            argv,
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group, so a stop takes its children too
        )
        process = Process(name, popen, log_path)
        self.processes.append(process)
        return process

    def worker(
        self,
        name: str,
        concurrency: int = 2,
        queues: list[str] | None = None,
        extra_env: dict[str, str] | None = None,
        pool: str | None = None,
    ) -> Process:
        """A worker called `name@<host>` (its name in the registry), consuming `queues` (-Q), or
        the default queue without them; its pool `pool` (`--pool`), or Celery's default."""
        return self.spawn(
            name,
            [
                str(BIN / "celery"),
                "-A",
                "notiflow",
                "worker",
                "--loglevel=INFO",
                f"--concurrency={concurrency}",
                *([f"--pool={pool}"] if pool else []),
                f"--hostname={name}@%h",
                *(["-Q", ",".join(queues)] if queues else []),
                "--without-mingle",
                "--without-gossip",
            ],
            extra_env,
        )

    def beat(self) -> Process:
        return self.spawn(
            "beat", [str(BIN / "celery"), "-A", "notiflow", "beat", "--loglevel=INFO"]
        )

    def collectstatic(self) -> None:
        """What a deployment does before starting gunicorn (WhiteNoise serves STATIC_ROOT)."""
        subprocess.run(
            [sys.executable, str(ROOT / "manage.py"), "collectstatic", "--noinput", "-v", "0"],
            cwd=ROOT,
            env=self.env,
            check=True,
            timeout=120,
        )

    def web(self, port: int) -> Process:
        self.base_url = f"http://127.0.0.1:{port}"
        return self.web_process("web", port)

    def web_process(
        self, name: str, port: int, *args: str, env: dict[str, str] | None = None
    ) -> Process:
        """A web process as the Procfile starts it, on `port`, with gunicorn options `args`."""
        command = [str(BIN / "gunicorn"), "--config", "python:notiflow.gunicorn_conf"]
        return self.spawn(
            name,
            [*command, "notiflow.asgi", "--bind", f"127.0.0.1:{port}", *args],
            {"NOTIFLOW_WEB_THREADS": "8", **(env or {})},
        )

    def stop(self) -> None:
        """Every process told at once, then each waited for, the last started first: a warm
        shutdown takes seconds, and one after another they were most of a session's teardown."""
        for process in reversed(self.processes):
            process.terminate()
        for process in reversed(self.processes):
            process.stop()

    def logs(self) -> str:
        return "\n".join(f"===== {p.name} =====\n{p.log()[-5000:]}" for p in self.processes)


def wait_until_up(stack: Stack, *, workers: int, api_key: str, timeout: float = 60) -> None:
    """Until `workers` workers are live in the registry: health's details, which need an API key
    (the public answer names no worker)."""
    headers = {"Authorization": f"Bearer {api_key}"}

    def healthy() -> bool:
        for process in stack.processes:
            if process.popen.poll() is not None:
                raise AssertionError(f"{process.name} exited early:\n{process.log()[-3000:]}")
        try:
            response = requests.get(f"{stack.base_url}/api/health/", headers=headers, timeout=2)
            health = response.json()
        except (requests.RequestException, ValueError):
            return False
        return bool(health.get("workers", {}).get("count", 0) >= workers)

    wait_for(healthy, timeout=timeout, interval=0.2, message="stack to come up")


@contextlib.contextmanager
def web_on_own_database(
    suffix: str, workdir: Path, env: dict[str, str], *, key_name: str
) -> Iterator[tuple[Stack, str]]:
    """gunicorn on a freshly migrated database of its own (the test database's name + `suffix`,
    a copy of the migrated template: tests/support/databases.py; dropped afterwards), with `env` as its environment, and an `admin` API key for it. For tests
    whose server must hold only what they put there (Schemathesis, the CLI's promotion)."""
    db = settings.DATABASES["default"]
    server = f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}"
    name = f"{db['NAME']}_{suffix}"
    assert name.startswith("test_"), name
    database_from_template(name)
    env = {
        **env,
        "DJANGO_SETTINGS_MODULE": "notiflow.settings",
        "DATABASE_URL": f"{server}/{name}",
        "DJANGO_STATIC_ROOT": str(workdir / "static"),
        "PYTHONUNBUFFERED": "1",
    }
    stack = Stack(env=env, workdir=workdir)
    manage = [sys.executable, str(ROOT / "manage.py")]
    created = subprocess.run(
        [*manage, "create_api_key", key_name, "--scope", "admin"],
        env=env,
        check=True,
        timeout=60,
        capture_output=True,
        text=True,
    )
    key = created.stdout.strip().splitlines()[-1]
    stack.web(free_port())

    def answers() -> bool:
        try:
            return requests.get(f"{stack.base_url}/api/health/", timeout=2).status_code == 200
        except requests.RequestException:
            return False

    try:
        wait_for(answers, timeout=60, interval=0.2, message="gunicorn to answer")
        yield stack, key
    except BaseException:
        print(stack.logs())
        raise
    finally:
        stack.stop()
        database_drop(name)

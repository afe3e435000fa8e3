"""The bench's own databases, Redis database and processes (worker, beat, gunicorn).

Nothing here touches a database or a Redis database that the bench did not name itself: the
databases are `<prefix>_template`, `<prefix>_engine` and `<prefix>_sql` on the server of
DATABASE_URL, and Redis is the one database of --redis-url (flushed before each measurement).
With `--broker rabbitmq` the broker is the vhost `<prefix>` of the RabbitMQ on --rabbitmq-url,
deleted and made again before each measurement; Redis stays as the cache.
"""

from __future__ import annotations

import importlib.util
import os
import platform
import re
import shlex
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote, unquote, urlsplit, urlunsplit

import psycopg
import redis
from psycopg import sql

from notiflow import gunicorn_conf

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


@dataclass(frozen=True)
class Config:
    """Where the bench runs: server URLs, its database names, its port, its scratch folder."""

    server_url: str  # postgres://user@host:port (no database)
    db_prefix: str
    redis_url: str
    port: int
    workdir: Path
    # Redis's URL, or amqp://user:password@host:port/<db_prefix> (a vhost of the bench's own).
    broker_url: str = ""

    def __post_init__(self) -> None:
        if not self.broker_url:
            object.__setattr__(self, "broker_url", self.redis_url)

    @property
    def rabbitmq_vhost(self) -> str | None:
        if not self.broker_url.startswith("amqp"):
            return None
        return unquote(urlsplit(self.broker_url).path.lstrip("/"))

    def db_url(self, part: str) -> str:
        return f"{self.server_url}/{self.db_name(part)}"

    def db_name(self, part: str) -> str:
        return f"{self.db_prefix}_{part}"

    @classmethod
    def from_env(
        cls, *, db_prefix: str, redis_url: str, port: int | None, rabbitmq_url: str | None = None
    ) -> Config:
        """`rabbitmq_url` (amqp://user:password@host:port, no vhost): RabbitMQ is the broker."""
        url = urlsplit(
            os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/notiflow")
        )
        server = urlunsplit(url._replace(path="", query="", fragment=""))
        workdir = ROOT / ".run" / "bench"
        workdir.mkdir(parents=True, exist_ok=True)
        return cls(
            server_url=server,
            db_prefix=db_prefix,
            redis_url=redis_url,
            port=port or int(os.environ.get("NOTIFLOW_PORT", "8013")),
            workdir=workdir,
            broker_url=f"{rabbitmq_url.rstrip('/')}/{quote(db_prefix, safe='')}"
            if rabbitmq_url
            else "",
        )


# --- databases ----------------------------------------------------------------------------------


def _admin(config: Config) -> psycopg.Connection:
    return psycopg.connect(f"{config.server_url}/postgres", autocommit=True)


def database_drop(config: Config, part: str) -> None:
    with _admin(config) as conn:
        conn.execute(
            sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(
                sql.Identifier(config.db_name(part))
            )
        )


def database_clone(config: Config, *, source: str, target: str) -> None:
    """CREATE DATABASE target TEMPLATE source (the source must have no open connections)."""
    database_drop(config, target)
    with _admin(config) as conn:
        conn.execute(
            sql.SQL("CREATE DATABASE {} TEMPLATE {}").format(
                sql.Identifier(config.db_name(target)), sql.Identifier(config.db_name(source))
            )
        )


def database_template(config: Config) -> None:
    """A freshly migrated database to clone the others from."""
    database_drop(config, "template")
    with _admin(config) as conn:
        conn.execute(
            sql.SQL("CREATE DATABASE {}").format(sql.Identifier(config.db_name("template")))
        )
    subprocess.run(
        [sys.executable, str(ROOT / "manage.py"), "migrate", "--noinput", "-v", "0"],
        cwd=ROOT,
        env={**base_env(config, "template")},
        check=True,
    )


def redis_flush(config: Config) -> None:
    """Empty the bench's Redis database and, with RabbitMQ as the broker, its vhost."""
    redis.Redis.from_url(config.redis_url).flushdb()
    if config.rabbitmq_vhost:
        rabbitmq_vhost_reset(config.rabbitmq_vhost)


def rabbitmq_vhost_reset(vhost: str) -> None:
    """Delete the vhost (its queues and messages with it) and make it again for guest: as empty
    as a flushed Redis database. rabbitmqctl talks to the local node."""
    rabbitmq_vhost_delete(vhost)
    _rabbitmqctl("add_vhost", vhost)
    _rabbitmqctl("set_permissions", "-p", vhost, "guest", ".*", ".*", ".*")


def rabbitmq_vhost_delete(vhost: str) -> None:
    """The vhost gone, whether or not it was there."""
    _rabbitmqctl("delete_vhost", vhost, missing_ok=True)


def _rabbitmqctl(*args: str, missing_ok: bool = False) -> None:
    done = subprocess.run(["rabbitmqctl", "-q", *args], capture_output=True, text=True, timeout=60)
    if done.returncode != 0 and not (missing_ok and "does not exist" in done.stderr):
        raise RuntimeError(f"rabbitmqctl {' '.join(args)}: {done.stderr.strip()}")


# --- processes ----------------------------------------------------------------------------------


BENCH_SECRET_KEY = "bench-only-key-for-throwaway-databases-" + "b" * 24


def base_env(config: Config, db_part: str = "engine", **extra: str) -> dict[str, str]:
    """The environment of every process the bench starts: production settings, no-I/O providers."""
    env = {k: v for k, v in os.environ.items() if k not in ("EMAIL_URL", "PYTHONPATH")}
    env.update(
        {
            "DJANGO_SETTINGS_MODULE": "notiflow.settings",
            # The settings refuse to start without one outside debug; the bench's databases are
            # throwaway, so a fixed key signs nothing worth forging (yours wins if set).
            "DJANGO_SECRET_KEY": os.environ.get("DJANGO_SECRET_KEY") or BENCH_SECRET_KEY,
            "DATABASE_URL": config.db_url(db_part),
            "CELERY_BROKER_URL": config.broker_url,
            # Sends nothing and keeps nothing (locmem would keep every message in memory).
            "EMAIL_BACKEND": "django.core.mail.backends.dummy.EmailBackend",
            "NOTIFLOW_SMS_BACKEND": "null",
            # The bench creates triggers before it starts their workers, and measures intake
            # where no worker runs: intake must not refuse them (503). Its statement still asks
            # the registry, so the intake figures include that cost.
            "NOTIFLOW_TRIGGER_REQUIRES_WORKER": "false",
            # The bench is the load: it measures intake, not its API key's rate limit (whose
            # Redis round trip it still pays: a limit too high to reach, rather than off).
            "NOTIFLOW_RATE_LIMIT_TRIGGER": "1000000/s",
            "NOTIFLOW_RATE_LIMIT_ADMIN": "1000000/s",
            "PYTHONUNBUFFERED": "1",
            "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
        }
    )
    if config.rabbitmq_vhost:
        # The cache and the rate limits stay on Redis: the bench's database, not the default.
        env["NOTIFLOW_CACHE_URL"] = env["NOTIFLOW_REDIS_URL"] = config.redis_url
    env.update(extra)
    return env


@dataclass
class Proc:
    name: str
    argv: list[str]
    popen: subprocess.Popen
    log_path: Path

    @property
    def pid(self) -> int:
        return self.popen.pid

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def wait_for_log(self, pattern: str, *, timeout: float = 90) -> None:
        deadline = time.monotonic() + timeout
        while not re.search(pattern, self.log()):
            if self.popen.poll() is not None:
                raise RuntimeError(f"{self.name} exited early:\n{self.log()[-3000:]}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"{self.name} not ready after {timeout}s:\n{self.log()[-3000:]}")
            time.sleep(0.2)

    def stop(self, timeout: float = 30) -> None:
        if self.popen.poll() is not None:
            return
        os.killpg(self.popen.pid, signal.SIGTERM)
        try:
            self.popen.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(self.popen.pid, signal.SIGKILL)
            self.popen.wait(timeout=timeout)

    def children(self) -> list[int]:
        path = Path(f"/proc/{self.pid}/task/{self.pid}/children")
        return [int(p) for p in path.read_text().split()] if path.exists() else []

    def rss_kib(self) -> dict[int, int]:
        """Resident set size (KiB) of the process and of each of its direct children."""
        return {pid: rss_kib(pid) for pid in [self.pid, *self.children()]}


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


@dataclass(frozen=True)
class Layout:
    """How a host's worker processes are arranged (issue 21's pool comparison): `workers`
    separate `celery worker` processes, each with `args` (its pool and concurrency)."""

    name: str
    workers: int = 1
    args: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()  # more of the workers' environment (a setting's A/B)

    def start(self, procs: Processes, *, name: str, app: str, **env: str) -> list[Proc]:
        env = {**env, **dict(self.env)}
        if self.workers == 1:
            return [procs.worker(name=name, app=app, args=self.args, **env)]
        return [
            procs.worker(
                name=f"{name}-{i}", app=app, args=(*self.args, "-n", f"{name}{i}@%h"), **env
            )
            for i in range(self.workers)
        ]


# The standard worker command, as deployed (Procfile `worker`).
STANDARD = Layout("standard")


def _procfile_processes() -> dict[str, str]:
    """The Procfile's processes by name, read by `make run`'s own parser (scripts/run_plan.py,
    loaded by its path: scripts/ is not a package)."""
    run_plan = sys.modules.get("run_plan")
    if run_plan is None:
        spec = importlib.util.spec_from_file_location("run_plan", ROOT / "scripts" / "run_plan.py")
        assert spec is not None and spec.loader is not None
        run_plan = sys.modules["run_plan"] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(run_plan)
    return dict(run_plan.procfile_processes((ROOT / "Procfile").read_text()))


def procfile_worker_args(name: str) -> tuple[str, ...]:
    """The options of the Procfile's worker `name` after `celery -A notiflow worker`, its log
    level left out (Processes.worker sets it): the bench starts it as deployed."""
    command = _procfile_processes().get(name)
    if command is None:
        raise ValueError(f"the Procfile has no process {name!r}")
    argv = shlex.split(command)
    head = ["celery", "-A", "notiflow", "worker"]
    if argv[: len(head)] != head:
        raise ValueError(f"the Procfile's {name!r} is not a worker: {command}")
    return tuple(arg for arg in argv[len(head) :] if not arg.startswith("--loglevel"))


@dataclass
class Processes:
    """Every process the bench started, stopped in reverse order at the end, whatever happens."""

    config: Config
    running: list[Proc] = field(default_factory=list)

    def spawn(self, name: str, argv: list[str], env: dict[str, str]) -> Proc:
        log_path = self.config.workdir / f"{name}.log"
        log_path.unlink(missing_ok=True)
        log = log_path.open("ab")
        popen = subprocess.Popen(
            argv,
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: a stop takes its children too
        )
        proc = Proc(name, argv, popen, log_path)
        self.running.append(proc)
        return proc

    def stop(self, proc: Proc) -> None:
        proc.stop()
        if proc in self.running:
            self.running.remove(proc)

    def stop_all(self) -> None:
        for proc in reversed(list(self.running)):
            self.stop(proc)

    def worker(
        self, name: str = "worker", app: str = "notiflow", args: tuple[str, ...] = (), **env: str
    ) -> Proc:
        """The standard worker command (Procfile `worker`): concurrency from the settings
        (CELERY_WORKER_CONCURRENCY), as deployed; `args` are more of its options (a pool, a
        node name: Layout)."""
        argv = [str(BIN / "celery"), "-A", app, "worker", "--loglevel=INFO", *args]
        proc = self.spawn(name, argv, base_env(self.config, **env))
        proc.wait_for_log(r"\S+@\S+ ready\.")
        return proc

    def beat(self, **env: str) -> Proc:
        """The Procfile `beat` command: runs the sweeper every NOTIFLOW_SWEEP_INTERVAL_SECONDS."""
        argv = [str(BIN / "celery"), "-A", "notiflow", "beat", "--loglevel=INFO"]
        proc = self.spawn("beat", argv, base_env(self.config, **env))
        proc.wait_for_log(r"beat: Starting")
        return proc

    def web(self, server: str = "asgi", **env: str) -> Proc:
        """The Procfile `web` command on the bench's port; `server` "wsgi" runs the web process
        as it was before notiflow/asgi.py (gthread, 4 threads, notiflow.wsgi), for an A/B."""
        app = ["notiflow.asgi"]
        if server == "wsgi":
            app = ["--worker-class", "gthread", "--threads", "4", "notiflow.wsgi"]
        argv = [
            str(BIN / "gunicorn"),
            "--config",
            "python:notiflow.gunicorn_conf",
            *app,
            "--bind",
            f"127.0.0.1:{self.config.port}",
        ]
        proc = self.spawn("web", argv, base_env(self.config, **env))
        # Every worker, each ready at once (the app is preloaded).
        proc.wait_for_log(rf"(?s)(Booting worker with pid.*){{{gunicorn_conf.workers}}}")
        return proc


# --- the machine --------------------------------------------------------------------------------


def _worker_concurrency() -> str:
    from django.conf import settings

    return str(settings.CELERY_WORKER_CONCURRENCY)


def machine_description(config: Config) -> dict[str, str]:
    def first(pattern: str, text: str) -> str:
        match = re.search(pattern, text, re.MULTILINE)
        return match.group(1).strip() if match else "?"

    cpuinfo = Path("/proc/cpuinfo").read_text(errors="replace")
    meminfo = Path("/proc/meminfo").read_text(errors="replace")
    mem_gib = int(first(r"^MemTotal:\s+(\d+)", meminfo) or 0) / 1024 / 1024
    with _admin(config) as conn:
        pg = conn.execute("SHOW server_version").fetchone()
        settings: dict[str, str] = dict(
            conn.execute(
                "SELECT name, current_setting(name) FROM pg_settings WHERE name IN "
                "('shared_buffers', 'synchronous_commit', 'autovacuum', 'max_connections')"
            ).fetchall()
        )
    info = redis.Redis.from_url(config.redis_url).info("server")
    return {
        "cpus (nproc)": str(os.cpu_count()),
        "cpu model": first(r"^model name\s*:\s*(.+)$", cpuinfo),
        "memory": f"{mem_gib:.1f} GiB",
        "kernel": platform.release(),
        "python": platform.python_version(),
        "postgresql": f"{pg[0] if pg else '?'} ({', '.join(f'{k}={v}' for k, v in settings.items())})",
        "redis": str(info.get("redis_version", "?")),
        "broker": config.broker_url.split("://", 1)[0]
        + (f" (vhost {config.rabbitmq_vhost})" if config.rabbitmq_vhost else ""),
        "worker pool processes (CELERY_WORKER_CONCURRENCY)": _worker_concurrency(),
        "load average at start": " ".join(f"{x:.2f}" for x in os.getloadavg()),
    }

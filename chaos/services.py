"""A throwaway PostgreSQL cluster and redis-server on free loopback ports, for the harness alone.

Nothing here touches a shared server: every restart, flush and stop is of these processes.
"""

from __future__ import annotations

import glob
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import psycopg
import redis

from tests.support.smtp import free_port
from tests.support.stack import wait_for

START_TIMEOUT = 60


def postgres_bindir() -> Path:
    """The server binaries: `pg_config --bindir`, else the newest /usr/lib/postgresql/*/bin."""
    candidates = []
    if shutil.which("pg_config"):
        found = subprocess.run(
            ["pg_config", "--bindir"], capture_output=True, text=True, check=False
        )
        candidates.append(Path(found.stdout.strip()))
    candidates += [Path(p) for p in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True)]
    for candidate in candidates:
        if (candidate / "initdb").exists() and (candidate / "pg_ctl").exists():
            return candidate
    raise RuntimeError("PostgreSQL server binaries (initdb, pg_ctl) not found; install postgresql")


class PostgresCluster:
    """initdb + pg_ctl in `root` (trust authentication, loopback only, fsync off).

    fsync=off only matters if the machine itself crashes; every fault here is a process fault,
    and a fast restart is a clean shutdown, so committed data survives exactly as with fsync on.
    """

    def __init__(
        self,
        root: Path,
        *,
        host: str = "127.0.0.1",
        port: int | None = None,
        trusted: str | None = None,
        prefix: tuple[str, ...] = (),
    ):
        """Listening on `host` (loopback unless the hosts harness gives a namespace's address),
        trusting connections from the `trusted` network (CIDR) besides loopback; every command
        runs behind `prefix` (e.g. `ip netns exec <ns>`)."""
        self.root = root
        self.data = root / "data"
        self.log = root / "postgres.log"
        self.host = host
        self.port = port or free_port()
        self.trusted = trusted
        self.bindir = postgres_bindir()
        # initdb refuses to run as root: run the server as `postgres` when we are root.
        owner = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        self.as_owner = [*prefix, *owner]
        self.chown = bool(owner)

    def url(self, *, user: str = "postgres", database: str = "notiflow") -> str:
        return f"postgres://{user}@{self.host}:{self.port}/{database}"

    def _pg_ctl(self, *args: str, check: bool = True) -> None:
        # Never a pipe: the server started by pg_ctl inherits its stdout and stderr, and a pipe
        # it holds open would keep subprocess.run waiting for EOF long after pg_ctl exited.
        with (self.root / "pg_ctl.log").open("ab") as out:
            subprocess.run(
                [*self.as_owner, str(self.bindir / "pg_ctl"), "-D", str(self.data), *args],
                check=check,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                timeout=START_TIMEOUT,
            )

    def _start_server(self) -> None:
        options = (
            f"-p {self.port} -k {self.root} -c listen_addresses={self.host} -c fsync=off "
            "-c full_page_writes=off -c max_connections=200"
        )
        self._pg_ctl("-l", str(self.log), "-o", options, "-w", "start")

    def start(self) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        if self.chown:
            shutil.chown(self.root, user="postgres", group="postgres")
        subprocess.run(
            [
                *self.as_owner,
                *(str(self.bindir / "initdb"), "-D", str(self.data), "-A", "trust"),
                *("-U", "postgres", "-E", "UTF8", "--no-sync"),
            ],
            check=True,
            capture_output=True,  # initdb starts nothing that outlives it
            timeout=START_TIMEOUT,
        )
        if self.trusted:
            with (self.data / "pg_hba.conf").open("a") as hba:
                hba.write(f"host all all {self.trusted} trust\n")
        self._start_server()
        with psycopg.connect(self.url(database="postgres"), autocommit=True) as conn:
            conn.execute("CREATE DATABASE notiflow")

    def restart(self) -> float:
        """Fast restart (every connection is cut); returns how long the server was away.

        A stop then a start rather than `pg_ctl restart`, which has no -l: the new server would
        log to pg_ctl's own output."""
        started = time.monotonic()
        self._pg_ctl("-m", "fast", "-w", "stop")
        self._start_server()
        return time.monotonic() - started

    def stop(self) -> None:
        if (self.data / "postmaster.pid").exists():
            self._pg_ctl("-m", "immediate", "-w", "stop", check=False)


class RedisServer:
    """redis-server without persistence: a restart loses everything, like a FLUSHALL."""

    def __init__(
        self,
        root: Path,
        *,
        host: str = "127.0.0.1",
        port: int | None = None,
        prefix: tuple[str, ...] = (),
    ):
        """Bound to `host`; started behind `prefix` (e.g. `ip netns exec <ns>`)."""
        self.root = root
        self.host = host
        self.port = port or free_port()
        self.prefix = prefix
        self.url = f"redis://{host}:{self.port}/0"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        self.process = subprocess.Popen(
            [
                *self.prefix,
                *("redis-server", "--port", str(self.port), "--bind", self.host),
                *("--save", "", "--appendonly", "no", "--dir", str(self.root)),
                *("--logfile", str(self.root / "redis.log")),
                # Off the loopback, protected mode refuses every client without a password: the
                # only other address is a private namespace's (hosts/), which nothing else sees.
                *(("--protected-mode", "no") if self.host != "127.0.0.1" else ()),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        client = redis.Redis.from_url(self.url, socket_connect_timeout=1)
        wait_for(self._answers(client), timeout=START_TIMEOUT, interval=0.05, message="redis")

    @staticmethod
    def _answers(client: redis.Redis):
        def ping() -> bool:
            try:
                return bool(client.ping())
            except redis.RedisError:
                return False

        return ping

    def flush(self) -> str:
        redis.Redis.from_url(self.url).flushall()
        return "FLUSHALL"

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)

    def restart(self) -> float:
        started = time.monotonic()
        self.stop()
        self.start()
        return time.monotonic() - started


class RabbitNode:
    """A RabbitMQ node of the harness's own (rabbitmq-server with its own node name, ports, data
    and config under `root`), so that restarting it never touches the machine's RabbitMQ.

    Queues are durable and messages persistent (Celery's defaults): a restart keeps what was
    queued and requeues what was delivered but not acknowledged, as a production restart does.
    """

    def __init__(self, root: Path):
        self.root = root
        self.port = free_port()
        # Erlang distribution, which rabbitmqctl talks over; epmd (4369) is shared with any
        # other node on the machine and only maps names to ports.
        self.dist_port = free_port()
        self.node = f"notiflow-chaos-{self.port}@localhost"
        self.url = f"amqp://guest:guest@127.0.0.1:{self.port}//"
        self.process: subprocess.Popen[bytes] | None = None

    def _ctl(self, *args: str) -> None:
        subprocess.run(
            ["rabbitmqctl", "-q", "-n", self.node, *args],
            check=True,
            capture_output=True,
            timeout=START_TIMEOUT,
        )

    def start(self) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        # Our own config and env files: the machine's (/etc/rabbitmq) name the shared node and
        # its port. rabbitmq-server, started as root, runs the node as `rabbitmq`.
        (self.root / "rabbitmq.conf").write_text(
            f"listeners.tcp.local = 127.0.0.1:{self.port}\nloopback_users.guest = true\n"
        )
        (self.root / "rabbitmq-env.conf").write_text("ERL_EPMD_ADDRESS=127.0.0.1\n")
        (self.root / "enabled_plugins").write_text("[].\n")
        if os.geteuid() == 0:
            shutil.chown(self.root, user="rabbitmq", group="rabbitmq")
        env = {
            **os.environ,
            "RABBITMQ_NODENAME": self.node,
            "RABBITMQ_DIST_PORT": str(self.dist_port),
            "RABBITMQ_CONFIG_FILE": str(self.root / "rabbitmq.conf"),
            "RABBITMQ_CONF_ENV_FILE": str(self.root / "rabbitmq-env.conf"),
            "RABBITMQ_ENABLED_PLUGINS_FILE": str(self.root / "enabled_plugins"),
            "RABBITMQ_MNESIA_BASE": str(self.root / "mnesia"),
            "RABBITMQ_LOG_BASE": str(self.root / "log"),
            "RABBITMQ_PID_FILE": str(self.root / "node.pid"),
            "ERL_FLAGS": "-kernel inet_dist_use_interface {127,0,0,1}",
        }
        with (self.root / "server.log").open("ab") as out:
            self.process = subprocess.Popen(
                ["rabbitmq-server"],
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        # `wait` returns once the pid file is there and the broker's applications have started.
        self._ctl("wait", str(self.root / "node.pid"), "--timeout", str(START_TIMEOUT))

    def restart(self) -> float:
        """stop_app then start_app: every connection is cut and the broker is away meanwhile;
        returns how long it was away."""
        started = time.monotonic()
        self._ctl("stop_app")
        self._ctl("start_app")
        return time.monotonic() - started

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        try:
            self._ctl("shutdown")
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=30)

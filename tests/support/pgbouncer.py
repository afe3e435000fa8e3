"""A private PgBouncer for tests (Debian's `pgbouncer`, 1.18 on Debian 12): its own ini in a
temporary directory, a free loopback port, transaction pooling in front of the test PostgreSQL,
its admin console open to the test user (SHOW POOLS, SHOW SERVERS).

PgBouncer refuses to run as root; as root it is started with `-u` as the PostgreSQL server's
user (or nobody), which must be able to read its directory.
"""

from __future__ import annotations

import os
import pwd
import shutil
import signal
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import psycopg

from tests.support.smtp import free_port
from tests.support.stack import wait_for

BINARY = "pgbouncer"


def pgbouncer_missing() -> str:
    """Why a PgBouncer cannot be started here, or "" when it can."""
    if shutil.which(BINARY) or Path("/usr/sbin/pgbouncer").exists():
        return ""
    return "pgbouncer is not installed: sudo apt-get install -y pgbouncer (or make test-tools)"


class PgBouncer:
    def __init__(
        self,
        *,
        server_host: str,
        server_port: int,
        user: str,
        pool_mode: str = "transaction",
        default_pool_size: int = 10,
        max_client_conn: int = 200,
        console_users: bool = True,
    ):
        self.server_host = server_host
        self.server_port = server_port
        self.user = user
        self.pool_mode = pool_mode
        self.default_pool_size = default_pool_size
        self.max_client_conn = max_client_conn
        # Whether `user` may read the admin console (admin_users, stats_users); without it, as a
        # deployment that does not list the application's user there.
        self.console_users = console_users
        self.host = "127.0.0.1"
        self.port = 0
        self.workdir: Path | None = None
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def console_user(self) -> str:
        return self.user if self.console_users else "notiflow_console_nobody"

    def ini(self) -> str:
        return "\n".join(
            [
                "[databases]",
                f"* = host={self.server_host} port={self.server_port}",
                "[pgbouncer]",
                f"listen_addr = {self.host}",  # loopback only
                f"listen_port = {self.port}",
                "unix_socket_dir =",  # no socket in /tmp to collide with another instance
                "auth_type = trust",
                f"auth_file = {self.workdir}/users.txt",
                f"admin_users = {self.console_user}",
                f"stats_users = {self.console_user}",
                f"pool_mode = {self.pool_mode}",
                f"default_pool_size = {self.default_pool_size}",
                "min_pool_size = 0",
                "reserve_pool_size = 0",
                f"max_client_conn = {self.max_client_conn}",
                "",
            ]
        )

    def start(self) -> PgBouncer:
        self.workdir = Path(tempfile.mkdtemp(prefix="notiflow-pgbouncer-"))
        self.port = free_port()
        (self.workdir / "users.txt").write_text(f'"{self.user}" ""\n')
        (self.workdir / "pgbouncer.ini").write_text(self.ini())
        switch: list[str] = []
        if os.geteuid() == 0:
            self.workdir.chmod(0o755)
            switch = ["-u", _unprivileged_user()]
        binary = shutil.which(BINARY) or "/usr/sbin/pgbouncer"
        log = (self.workdir / "pgbouncer.log").open("ab")
        self.process = subprocess.Popen(
            [binary, *switch, str(self.workdir / "pgbouncer.ini")],
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

        def answers() -> bool:
            if self.process is not None and self.process.poll() is not None:
                raise AssertionError(f"pgbouncer exited early:\n{self.log()}")
            try:
                return bool(self.console("SHOW VERSION"))
            except psycopg.OperationalError as exc:
                # Up, and refusing the console to a user it does not list: up is all we wait for.
                return "not allowed" in str(exc)

        wait_for(answers, timeout=15, interval=0.05, message="pgbouncer to answer")
        return self

    def stop(self) -> None:
        """Stop it, and wait until PostgreSQL has ended the sessions of its server connections
        (a database they were on can then be dropped at once)."""
        if self.process is not None and self.process.poll() is None:
            ports = [row["local_port"] for row in self.console_rows("SHOW SERVERS")]
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
            if ports:
                wait_for(
                    lambda: not self._server_sessions(ports),
                    timeout=10,
                    message="PostgreSQL to end pgbouncer's sessions",
                )
        if self.workdir is not None:
            shutil.rmtree(self.workdir, ignore_errors=True)

    def url(self, database: str) -> str:
        return f"postgres://{self.user}@{self.host}:{self.port}/{database}"

    def console(self, command: str) -> list[dict[str, Any]]:
        """A SHOW command on the admin console, its rows as dicts."""
        with psycopg.connect(
            host=self.host,
            port=self.port,
            user=self.user,
            dbname="pgbouncer",
            autocommit=True,
            connect_timeout=3,
        ) as admin:
            cursor = admin.execute(command)
            names = [column.name for column in cursor.description or ()]
            return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]

    def console_rows(self, command: str) -> list[dict[str, Any]]:
        """As console(), or no rows when the console is not ours to read."""
        try:
            return self.console(command)
        except psycopg.Error:
            return []

    def _server_sessions(self, ports: list[int]) -> int:
        with psycopg.connect(
            host=self.server_host, port=self.server_port, user=self.user, dbname="postgres"
        ) as server:
            row = server.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE client_port = ANY(%s)", [ports]
            ).fetchone()
        return int(row[0]) if row else 0

    def pool(self, database: str) -> dict[str, int]:
        """SHOW POOLS for `database`: client connections (active + waiting) and server
        connections (every state), 0 before its first client."""
        for row in self.console("SHOW POOLS"):
            if row["database"] == database:
                clients = row["cl_active"] + row["cl_waiting"]
                servers = sum(
                    row[state]
                    for state in ("sv_active", "sv_idle", "sv_used", "sv_tested", "sv_login")
                )
                return {"clients": clients, "servers": servers, "waiting": row["cl_waiting"]}
        return {"clients": 0, "servers": 0, "waiting": 0}

    def log(self) -> str:
        if self.workdir is None:
            return ""
        path = self.workdir / "pgbouncer.log"
        return path.read_text(errors="replace") if path.exists() else ""


def _unprivileged_user() -> str:
    for name in ("postgres", "nobody"):
        try:
            pwd.getpwnam(name)
        except KeyError:
            continue
        return name
    raise AssertionError("no unprivileged user to run pgbouncer as (postgres, nobody)")

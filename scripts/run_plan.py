"""`make run`'s plan (scripts/run.py, whose docstring has the rules): the port each listener
takes, chosen before anything changes, and the processes honcho starts (the Procfile's, plus a
mail catcher unless EMAIL_URL is set), with the environment they share."""

from __future__ import annotations

import re
import shlex
import shutil
import socket
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PORT_SEARCH = 50  # how far past a taken default port to look for a free one


@dataclass(frozen=True)
class Listener:
    """A socket one of the processes opens, and how to tell that it answers."""

    name: str
    host: str
    port: int
    # "http" (any HTTP answer), "smtp" (a 220 greeting), or "worker" (the API, asked with
    # `token`, lists `workers` live workers: every worker group has registered, so triggers are
    # accepted on each queue)
    probe: str
    path: str = "/"
    note: str = ""  # set when a default port was taken and another one chosen
    token: str = ""
    workers: int = 1

    @property
    def url(self) -> str:
        # A wildcard address is reached through loopback.
        host = "127.0.0.1" if self.host in ("0.0.0.0", "", "::") else self.host  # noqa: S104
        return f"http://{f'[{host}]' if ':' in host else host}:{self.port}/"


@dataclass
class Plan:
    """The processes make run starts, the environment they share, and what they listen on."""

    env: dict[str, str]
    procfile: str
    web: Listener
    flower: Listener
    mail_web: Listener | None
    smtp: Listener | None
    mail_tool: str = ""
    listeners: list[Listener] = field(default_factory=list)


def port_free(host: str, port: int) -> bool:
    """Whether a server could bind host:port now (with SO_REUSEADDR, as gunicorn and Tornado do)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError:
            return False
    return True


PortCheck = Callable[[str, int], bool]


def choose_port(
    name: str, host: str, port: int, *, variable: str, explicit: bool, free: PortCheck = port_free
) -> tuple[int, str]:
    """The port `name` will use and a note when it is not the one asked for.

    An explicit port (from `variable`) that is taken stops make run; a default one that is taken
    gives way to the next free port."""
    if free(host, port):
        return port, ""
    if explicit:
        raise SystemExit(
            f"make run: {host}:{port} for {name} ({variable}) is already in use. Stop what "
            f"listens there, or set {variable} to a free port."
        )
    for candidate in range(port + 1, port + 1 + PORT_SEARCH):
        if free(host, candidate):
            return candidate, f"{port} was taken; set {variable} to choose"
    raise SystemExit(f"make run: no free port for {name} in {port}-{port + PORT_SEARCH}")


def split_address(address: str, variable: str) -> tuple[str, int]:
    """("127.0.0.1", 8000) from "127.0.0.1:8000" or "[::1]:8000"."""
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit() or address.startswith(("unix:", "fd://")):
        raise SystemExit(f"make run: {variable}={address!r} must be host:port")
    return host.strip("[]"), int(port)


def _port_setting(env: Mapping[str, str], variable: str, default: int) -> tuple[int, bool]:
    value = env.get(variable, "").strip()
    if not value:
        return default, False
    if not value.isdigit() or not 0 < int(value) < 65536:
        raise SystemExit(f"make run: {variable}={value!r} is not a TCP port number")
    return int(value), True


def web_listener(env: Mapping[str, str], free: PortCheck = port_free) -> Listener:
    """Where gunicorn will listen: notiflow/gunicorn_conf.py's own choice, or a free port."""
    sys.path.insert(0, str(ROOT))
    try:
        # Importing it resolves its `bind` from this process's environment: the same error.
        from notiflow.gunicorn_conf import web_bind

        bind = web_bind(env)
    except ValueError as exc:
        raise SystemExit(f"make run: {exc}") from None
    variable = "NOTIFLOW_BIND" if env.get("NOTIFLOW_BIND", "").strip() else "PORT"
    explicit = variable == "NOTIFLOW_BIND" or bool(env.get("PORT", "").strip())
    host, port = split_address(bind, variable)
    port, note = choose_port("web", host, port, variable=variable, explicit=explicit, free=free)
    return Listener("web", host, port, "http", "/api/health/", note)


def _listener(
    env: Mapping[str, str], name: str, host: str, variable: str, default: int, probe: str, path: str
) -> Listener:
    wanted, explicit = _port_setting(env, variable, default)
    port, note = choose_port(name, host, wanted, variable=variable, explicit=explicit)
    return Listener(name, host, port, probe, path, note)


# A process line, as honcho reads a Procfile (any other line, such as a comment, is skipped).
_PROCFILE_LINE = re.compile(r"^([A-Za-z0-9_-]+):\s*(.+)$")


def procfile_processes(text: str) -> list[tuple[str, str]]:
    """(name, command) of each process of a Procfile, in order."""
    return [
        (match[1], match[2].strip())
        for match in map(_PROCFILE_LINE.match, text.splitlines())
        if match
    ]


def mail_command(smtp: Listener, web: Listener, mail_dir: Path) -> tuple[str, str]:
    """The catcher to run: (what it is, its command line)."""
    mailpit = shutil.which("mailpit")
    if mailpit:
        command = [
            mailpit,
            f"--smtp={smtp.host}:{smtp.port}",
            f"--listen={web.host}:{web.port}",
            f"--database={mail_dir / 'mailpit.db'}",
        ]
        return "Mailpit", shlex.join(command)
    command = [
        "python",
        "scripts/mailcatcher.py",
        f"--smtp={smtp.host}:{smtp.port}",
        f"--web={web.host}:{web.port}",
        f"--dir={mail_dir}",
    ]
    return "scripts/mailcatcher.py", shlex.join(command)


def plan(env: dict[str, str], run_dir: Path) -> Plan:
    """Choose every port and build the process list; raises SystemExit when one cannot be had."""
    env = dict(env)
    web = web_listener(env)
    flower_host = env.get("FLOWER_ADDRESS", "").strip() or "127.0.0.1"
    flower = _listener(env, "flower", flower_host, "FLOWER_PORT", 5555, "http", "/healthcheck")
    env.update(
        NOTIFLOW_BIND=f"[{web.host}]:{web.port}" if ":" in web.host else f"{web.host}:{web.port}",
        FLOWER_PORT=str(flower.port),
        NOTIFLOW_FLOWER_URL=flower.url,
    )
    # Links back to this instance (a marketing email's one-click unsubscribe) point at its web
    # process unless the environment names a public URL.
    env.setdefault("NOTIFLOW_PUBLIC_URL", web.url.rstrip("/"))
    processes = procfile_processes((ROOT / "Procfile").read_text())
    smtp = mail_web = None
    tool = ""
    if not env.get("EMAIL_URL", "").strip():
        smtp = _listener(env, "smtp", "127.0.0.1", "NOTIFLOW_MAIL_SMTP_PORT", 1025, "smtp", "")
        mail_web = _listener(env, "mail", "127.0.0.1", "NOTIFLOW_MAIL_WEB_PORT", 8025, "http", "/")
        tool, command = mail_command(smtp, mail_web, run_dir / "mail")
        processes.append(("mail", command))
        env["EMAIL_URL"] = f"smtp://{smtp.host}:{smtp.port}"
    listeners = [listener for listener in (web, flower, mail_web, smtp) if listener]
    procfile = "".join(f"{name}: {command}\n" for name, command in processes)
    return Plan(env, procfile, web, flower, mail_web, smtp, tool, listeners)

"""`make run`: set up a development instance, start the Procfile's processes (web, the engine's
worker, the webhook dispatcher's worker `webhooks`, beat, flower) and a mail catcher with honcho,
and print where each one listens once it does.

Idempotent: run it again and it reuses the database, the admin password, the API key and the
DJANGO_SECRET_KEY kept in .run/ (git-ignored; NOTIFLOW_RUN_DIR moves it). Everything listens on
127.0.0.1:

- web: NOTIFLOW_BIND, or NOTIFLOW_HOST and PORT, as in notiflow/gunicorn_conf.py [127.0.0.1:8000];
- flower: FLOWER_ADDRESS and FLOWER_PORT [127.0.0.1:5555]; its URL reaches every process as
  NOTIFLOW_FLOWER_URL;
- mail: Mailpit when it is on PATH, else scripts/mailcatcher.py, with SMTP on
  NOTIFLOW_MAIL_SMTP_PORT [1025] (EMAIL_URL points there) and its web page on
  NOTIFLOW_MAIL_WEB_PORT [8025]. Set EMAIL_URL yourself to send elsewhere; no catcher starts then.

A port given in the environment must be free, or make run stops and says so; a default port that
is taken is replaced by the next free one, and the banner says which. The banner comes once every
listener answers and the worker has registered, so its URLs are the ones really bound and the
demo trigger is accepted. SMS go to .run/sms.jsonl
(NOTIFLOW_SMS_BACKEND and NOTIFLOW_SMS_FILE change that).

The environment the processes share (database, broker, EMAIL_URL, DJANGO_SECRET_KEY, ...) is
written to .run/env: `make manage ARGS="..."` runs manage.py with it, and `. .run/env` gives it to
a shell.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
START_TIMEOUT_SECONDS = 120
PORT_SEARCH = 50  # how far past a taken default port to look for a free one


@dataclass(frozen=True)
class Listener:
    """A socket one of the processes opens, and how to tell that it answers."""

    name: str
    host: str
    port: int
    # "http" (any HTTP answer), "smtp" (a 220 greeting), or "worker" (the API, asked with
    # `token`, lists a live worker: one has registered, so triggers are accepted)
    probe: str
    path: str = "/"
    note: str = ""  # set when a default port was taken and another one chosen
    token: str = ""

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


def answers(listener: Listener) -> bool:
    """Whether the listener accepts a connection and speaks its protocol."""
    if listener.probe == "smtp":
        try:
            with socket.create_connection(("127.0.0.1", listener.port), timeout=2) as conn:
                return conn.recv(64).startswith(b"220")
        except OSError:
            return False
    if listener.probe == "worker":
        request = urllib.request.Request(  # noqa: S310 (our own http:// URL)
            listener.url.rstrip("/") + listener.path,
            headers={"Authorization": f"Bearer {listener.token}"},
        )
        try:
            with urllib.request.urlopen(request, timeout=3) as response:  # noqa: S310
                return bool(json.load(response).get("count"))
        except (OSError, ValueError):
            return False
    try:
        urllib.request.urlopen(listener.url.rstrip("/") + listener.path, timeout=3).close()  # noqa: S310 (our own http:// URL)
    except urllib.error.HTTPError:
        return True  # an answer all the same (Flower without a login: 401)
    except (OSError, ValueError):
        return False
    return True


def wait_listening(
    listeners: list[Listener], *, alive: Callable[[], bool], timeout: float
) -> list[Listener]:
    """Poll until every listener answers, the processes stop, or `timeout` passes; return those
    that do not answer (all of them when the processes stopped)."""
    pending = list(listeners)
    deadline = time.monotonic() + timeout
    while pending and time.monotonic() < deadline:
        if not alive():
            return pending
        pending = [listener for listener in pending if not answers(listener)]
        if pending:
            time.sleep(0.5)
    return pending


def manage(*args: str) -> None:
    subprocess.run([sys.executable, str(ROOT / "manage.py"), *args], check=True, cwd=ROOT)


def secret_file(path: Path, make: Callable[[], str]) -> str:
    if not path.exists():
        path.write_text(make())
        path.chmod(0o600)
    return path.read_text().strip()


def prepare(run_dir: Path) -> tuple[str, str] | None:
    """Database, migrations, static files, demo workflow, admin user and API key; returns
    (admin password, API key), or None when PostgreSQL or Redis cannot be reached."""
    sys.path.insert(0, str(ROOT / "scripts"))
    import services

    if services.main(["services", "ensure-db"]) != 0:
        print(
            "\nWith docker compose:  docker compose up -d db redis  and then\n"
            "  DATABASE_URL=postgres://notiflow:notiflow@127.0.0.1:55432/notiflow "
            "CELERY_BROKER_URL=redis://127.0.0.1:56379/0 make run",
            file=sys.stderr,
        )
        return None
    manage("migrate", "--noinput", "-v", "0")
    manage("collectstatic", "--noinput", "-v", "0")
    manage("load_demo_workflow")

    import django

    django.setup()
    from django.contrib.auth import get_user_model

    from triggers.services import api_key_authenticate, api_key_create

    password = secret_file(run_dir / "admin-password", lambda: secrets.token_urlsafe(12))
    admin, _ = get_user_model().objects.get_or_create(
        username="admin",
        defaults={"is_staff": True, "is_superuser": True, "email": "admin@localhost"},
    )
    admin.set_password(password)
    admin.save()

    key_path = run_dir / "api-key"
    if not key_path.exists() or api_key_authenticate(key=key_path.read_text().strip()) is None:
        # Names are unique: a key lost with .run/ (make clean) leaves its name behind.
        # An admin key: the readiness check lists the workers, and it is the developer's key.
        key = api_key_create(name=f"make-run {secrets.token_hex(3)}", scope="admin")[1]
        key_path.write_text(key)
        key_path.chmod(0o600)
    return password, key_path.read_text().strip()


# What configures Notiflow's processes (notiflow/settings.py, the providers, Flower): the variables
# .run/env records, so that a command run by hand reaches the same instance.
ENV_FILE_PREFIXES = (
    "ANYMAIL_",
    "CELERY_",
    "DATABASE_",
    "DJANGO_",
    "EMAIL_",
    "FLOWER_",
    "NOTIFLOW_",
    "TWILIO_",
)
ENV_FILE_NAMES = ("DEFAULT_FROM_EMAIL", "LOG_LEVEL")


def env_file_text(env: Mapping[str, str]) -> str:
    """Shell lines giving a command make run's environment: `export NAME='value'` for every
    variable of `env` that configures Notiflow (ENV_FILE_PREFIXES, ENV_FILE_NAMES), sorted; the
    rest of the environment (PATH, HOME, ...) stays the caller's."""
    names = sorted(
        name for name in env if name.startswith(ENV_FILE_PREFIXES) or name in ENV_FILE_NAMES
    )
    lines = [f"export {name}={shlex.quote(env[name])}" for name in names]
    return "# Written by make run (scripts/run.py): its environment. `. .run/env` in a shell.\n" + (
        "\n".join(lines) + "\n"
    )


def env_file_write(env: Mapping[str, str], run_dir: Path) -> Path:
    """Write run_dir/env (env_file_text), readable by its owner only: it holds the secret key and
    Flower's password. `make manage ARGS=...` sources it."""
    path = run_dir / "env"
    path.touch(mode=0o600)
    path.chmod(0o600)
    path.write_text(env_file_text(env))
    return path


def banner(
    plan: Plan, *, password: str, key: str, sms_file: str, env_file: Path, silent: list[Listener]
) -> str:
    base = plan.web.url.rstrip("/")
    lines = [
        "",
        "Notiflow is running (Ctrl-C stops every process).",
        f"  Admin     {base}/admin/   user admin, password {password}",
        f"  API docs  {base}/api/docs/",
        f"  Flower    {plan.flower.url}   user admin, the same password",
    ]
    if plan.mail_web and plan.smtp:
        lines.append(
            f"  Mail      {plan.mail_web.url}   every email the workers send "
            f"(SMTP {plan.smtp.host}:{plan.smtp.port}, {plan.mail_tool})"
        )
    else:
        lines.append(
            f"  Mail      sent through EMAIL_URL={plan.env['EMAIL_URL']} (no catcher started)"
        )
    lines.append(f"  SMS       appended to {sms_file}")
    lines.append(
        f'  Commands  make manage ARGS="notiflow_stats"   (or in a shell: . {env_file}; '
        "python manage.py ...)"
    )
    for listener in plan.listeners:
        if listener.note:
            lines.append(f"  ({listener.name} is on {listener.port}: {listener.note})")
    for listener in silent:
        if listener.probe == "worker":
            lines.append(
                "  NOT READY: no worker has registered yet, so triggers get 503; see the worker's "
                "log above"
            )
            continue
        lines.append(
            f"  NOT ANSWERING: {listener.name} on {listener.host}:{listener.port}; see its log above"
        )
    # A new key each session: the first curl creates (201), repeating it returns the same (200).
    signup = f"signup-{secrets.token_hex(3)}"
    lines.append(f"""
Fire the demo workflow (run it twice: 201, then 200 with the same id), then open the mail page:

  curl -s -X POST {base}/api/triggers/ \\
    -H 'Authorization: Bearer {key}' -H 'Content-Type: application/json' \\
    -d '{{"workflow": "welcome", "idempotency_key": "{signup}", "payload": {{"email": "ann@example.com", "name": "Ann", "phone": "+15550100"}}}}' \\
    -w '\\nHTTP %{{http_code}}\\n'
""")
    return "\n".join(lines)


def run_honcho(plan: Plan, run_dir: Path, on_listening: Callable[[list[Listener]], None]) -> int:
    """Start the processes, call `on_listening` with the silent listeners once every one answers
    (or the deadline passed), and wait for honcho; its exit status."""
    procfile = run_dir / "Procfile"
    procfile.write_text(plan.procfile)
    env = {**plan.env, "PATH": f"{BIN}{os.pathsep}{plan.env.get('PATH', '')}"}
    honcho = subprocess.Popen(  # same process group: Ctrl-C reaches honcho, which stops the rest
        [str(BIN / "honcho"), "start", "-f", str(procfile), "-d", str(ROOT)], cwd=ROOT, env=env
    )
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # honcho gets it too, and stops everything
    signal.signal(signal.SIGTERM, lambda *_: honcho.send_signal(signal.SIGTERM))
    silent = wait_listening(
        plan.listeners, alive=lambda: honcho.poll() is None, timeout=START_TIMEOUT_SECONDS
    )
    if honcho.poll() is None:
        on_listening(silent)
    else:
        print("make run: the processes stopped before all of them listened (log above).")
    return honcho.wait()


def secret_key(run_dir: Path) -> str:
    """The development instance's DJANGO_SECRET_KEY, made on the first run and kept in
    .run/secret-key (the settings refuse to start without one unless DJANGO_DEBUG is on)."""
    return secret_file(run_dir / "secret-key", lambda: secrets.token_urlsafe(50))


# NOTIFLOW_BROKER=rabbitmq make run: the broker by name, on this machine (CELERY_BROKER_URL, when
# set, wins).
BROKERS = {"redis": "redis://127.0.0.1:6379/0", "rabbitmq": "amqp://guest:guest@127.0.0.1:5672//"}


def main() -> int:
    broker = os.environ.get("NOTIFLOW_BROKER", "").strip().lower()
    if broker and broker not in BROKERS:
        print(
            f"NOTIFLOW_BROKER must be one of {', '.join(BROKERS)}, not {broker!r}", file=sys.stderr
        )
        return 2
    if broker:
        os.environ.setdefault("CELERY_BROKER_URL", BROKERS[broker])
    run_dir = Path(os.environ.get("NOTIFLOW_RUN_DIR") or ROOT / ".run").resolve()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "notiflow.settings")
    os.environ.setdefault("NOTIFLOW_SMS_BACKEND", "file")
    os.environ.setdefault("NOTIFLOW_SMS_FILE", str(run_dir / "sms.jsonl"))
    # A development instance: webhooks may go to a receiver on this machine.
    os.environ.setdefault("NOTIFLOW_WEBHOOK_ALLOW_PRIVATE", "true")
    # Load tests against a development instance are common; its API keys are not rate limited
    # unless the environment says otherwise.
    os.environ.setdefault("NOTIFLOW_RATE_LIMIT_TRIGGER", "off")
    os.environ.setdefault("NOTIFLOW_RATE_LIMIT_ADMIN", "off")
    run_dir.mkdir(parents=True, exist_ok=True)
    if not os.environ.get("DJANGO_SECRET_KEY", "").strip():
        os.environ["DJANGO_SECRET_KEY"] = secret_key(run_dir)
    # Ports first: a port that cannot be had stops make run before it changes anything.
    processes = plan(dict(os.environ), run_dir)
    os.environ.update(processes.env)
    secrets_ = prepare(run_dir)
    if secrets_ is None:
        return 1
    password, key = secrets_
    processes.env.setdefault("FLOWER_BASIC_AUTH", f"admin:{password}")
    env_file = env_file_write(processes.env, run_dir)
    # The banner waits for the worker too: until it has registered, intake answers 503
    # (NOTIFLOW_TRIGGER_REQUIRES_WORKER), and the curl below would fail.
    web = processes.web
    processes.listeners.append(
        Listener("worker", web.host, web.port, "worker", "/api/workers/?live=true", token=key)
    )

    def show(silent: list[Listener]) -> None:
        sms = processes.env["NOTIFLOW_SMS_FILE"]
        print(
            banner(
                processes,
                password=password,
                key=key,
                sms_file=sms,
                env_file=env_file,
                silent=silent,
            ),
            flush=True,
        )

    return run_honcho(processes, run_dir, show)


if __name__ == "__main__":
    sys.exit(main())

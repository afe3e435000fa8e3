"""`make run`'s first-run setup (scripts/run.py), idempotent: the database, migrations, static
files, the demo workflow, an `admin` user and an API key, and the secrets and environment kept
in .run/ (git-ignored; NOTIFLOW_RUN_DIR moves it), each made once and reused after."""

from __future__ import annotations

import secrets
import shlex
import subprocess
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

from run_plan import ROOT


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
    from triggers.api_keys import api_key_authenticate, api_key_create

    password = secret_file(run_dir / "admin-password", lambda: secrets.token_urlsafe(12))
    if not admin_user_ensure(password):
        print(
            "make run: the admin user keeps the password you set in the admin; the banner's is "
            "Flower's (.run/admin-password)."
        )

    key_path = run_dir / "api-key"
    if not key_path.exists() or api_key_authenticate(key=key_path.read_text().strip()) is None:
        # Names are unique: a key lost with .run/ (make clean) leaves its name behind.
        # An admin key: the readiness check lists the workers, and it is the developer's key.
        key = api_key_create(name=f"make-run {secrets.token_hex(3)}", scope="admin")[1]
        key_path.write_text(key)
        key_path.chmod(0o600)
    return password, key_path.read_text().strip()


def admin_user_ensure(password: str) -> bool:
    """The `admin` superuser, made with `password` the first time; whether `password` is still
    its password. A restart changes nothing: setting the same password again would give the user
    a new hash, which ends the operator's admin session; and a password the operator changed in
    the admin stays theirs."""
    from django.contrib.auth import get_user_model

    admin, created = get_user_model().objects.get_or_create(
        username="admin",
        defaults={"is_staff": True, "is_superuser": True, "email": "admin@localhost"},
    )
    if created or not admin.has_usable_password():
        admin.set_password(password)
        admin.save(update_fields=["password"])
        return True
    return admin.check_password(password)


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


def secret_key(run_dir: Path) -> str:
    """The development instance's DJANGO_SECRET_KEY, made on the first run and kept in
    .run/secret-key (the settings refuse to start without one unless DJANGO_DEBUG is on)."""
    return secret_file(run_dir / "secret-key", lambda: secrets.token_urlsafe(50))

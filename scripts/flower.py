"""Start Flower on the Notiflow broker, with basic auth and no persistent state.

    python scripts/flower.py            # the Procfile's and compose's `flower` process

FLOWER_BASIC_AUTH (`user:password`, comma-separated for several) is required unless
DJANGO_DEBUG is on: Flower can revoke tasks and shut workers down, so it never runs open by
accident. The credentials reach Flower through its own FLOWER_BASIC_AUTH variable, not argv (which
`ps` shows to everyone). FLOWER_ADDRESS [127.0.0.1] and FLOWER_PORT [5555] set where it listens;
the broker is CELERY_BROKER_URL, as for the workers.

Flower 2.x serves /metrics (worker names, task counts) and /healthcheck to anyone, login or not:
their handlers lack the `authenticated` check of every other page. Flower runs in this process
with those two routes given the check (`protect_open_routes`), so the login guards all of it;
tests/security/test_flower_auth.py asks every route of the installed Flower without it.
"""

from __future__ import annotations

import importlib
import os
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_TRUE = {"1", "true", "yes", "on"}
_CREDENTIALS = re.compile(r"^[^:,\s]+:[^,\s]+(,[^:,\s]+:[^,\s]+)*$")


def flower_argv(env: dict[str, str]) -> list[str]:
    """The command to run, or SystemExit with a message saying what is missing."""
    auth = env.get("FLOWER_BASIC_AUTH", "").strip()
    debug = env.get("DJANGO_DEBUG", "").strip().lower() in _TRUE
    if not auth and not debug:
        raise SystemExit(
            "flower: refusing to start without FLOWER_BASIC_AUTH (user:password). Set it, or "
            "set DJANGO_DEBUG=1 on a development machine to run Flower without a login."
        )
    if auth and not _CREDENTIALS.match(auth):
        raise SystemExit("flower: FLOWER_BASIC_AUTH must look like user:password[,user2:password2]")
    broker = env.get("CELERY_BROKER_URL", "redis://127.0.0.1:6379/0")
    return [
        str(Path(sys.executable).parent / "celery"),
        "-A",
        "notiflow",
        f"--broker={broker}",
        "flower",
        f"--address={env.get('FLOWER_ADDRESS', '127.0.0.1')}",
        f"--port={env.get('FLOWER_PORT', '5555')}",
        # Task history lives in PostgreSQL (step logs); Flower keeps none on disk.
        "--persistent=False",
    ]


# The routes Flower serves without asking for its login.
OPEN_ROUTES = ("/metrics", "/healthcheck")


def protect_open_routes() -> None:
    """Replace, in Flower's own route table, the handlers of OPEN_ROUTES by subclasses whose GET
    asks for the login as Flower's other pages do (`tornado.web.authenticated`, which with basic
    auth answers 401 to missing or wrong credentials). Refuses to go on if a route is missing:
    a Flower that moved them must be looked at, not run open."""
    import tornado.web

    # By name: to mypy, as to Python run from scripts/, "flower" is this very file.
    urls = importlib.import_module("flower.urls")

    found = set()
    for index, route in enumerate(urls.handlers):
        if isinstance(route, tuple) and route[0] in OPEN_ROUTES:
            pattern, handler = route[0], route[1]

            class LoginRequired(handler):  # type: ignore[misc,valid-type]
                @tornado.web.authenticated
                async def get(self) -> None:
                    await super().get()

            LoginRequired.__name__ = f"LoginRequired{handler.__name__}"
            # In place: flower.app holds this very list.
            urls.handlers[index] = (pattern, LoginRequired)
            found.add(pattern)
    if found != set(OPEN_ROUTES):
        missing = ", ".join(sorted(set(OPEN_ROUTES) - found))
        raise SystemExit(f"flower: this Flower has no route {missing}; see scripts/flower.py")


def main() -> None:
    argv = flower_argv(dict(os.environ))
    os.chdir(ROOT)
    # This file's directory comes first on sys.path, where its name would hide the flower package.
    here = Path(__file__).resolve().parent
    sys.path[:] = [str(ROOT), *(p for p in sys.path if Path(p or ".").resolve() != here)]
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "notiflow.settings")
    protect_open_routes()
    # Flower runs in this process (no child), so SIGTERM from honcho or Docker reaches it.
    from celery.bin.celery import main as celery

    sys.argv = argv
    sys.exit(celery())


if __name__ == "__main__":
    main()

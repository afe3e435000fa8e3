"""Start Flower on the Notiflow broker, with basic auth and no persistent state.

    python scripts/flower.py            # the Procfile's and compose's `flower` process

FLOWER_BASIC_AUTH (`user:password`, comma-separated for several) is required unless
DJANGO_DEBUG is on: Flower can revoke tasks and shut workers down, so it never runs open by
accident. The credentials reach Flower through its own FLOWER_BASIC_AUTH variable, not argv (which
`ps` shows to everyone). FLOWER_ADDRESS [127.0.0.1] and FLOWER_PORT [5555] set where it listens;
the broker is CELERY_BROKER_URL, as for the workers.
"""

from __future__ import annotations

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


def main() -> None:
    argv = flower_argv(dict(os.environ))
    os.chdir(ROOT)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "notiflow.settings")
    # exec: Flower becomes this process, so SIGTERM from honcho or Docker reaches it directly.
    os.execv(argv[0], argv)  # noqa: S606 (replace this process with Flower, no shell)


if __name__ == "__main__":
    main()

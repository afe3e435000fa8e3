"""`make run` (scripts/run.py), the web process's address (notiflow/gunicorn_conf.py), and the
README and design doc that describe them."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from notiflow.gunicorn_conf import web_bind
from tests.support.smtp import free_port
from tests.support.stack import ROOT

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


def clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in RUN_VARIABLES}
    return {**env, "DJANGO_SETTINGS_MODULE": "notiflow.settings", **extra}


@pytest.fixture
def occupied() -> Iterator[int]:
    """A loopback port something already listens on."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        yield listener.getsockname()[1]


# --- where the web process listens -------------------------------------------------------------


@pytest.mark.parametrize(
    ("env", "bind"),
    [
        ({}, "127.0.0.1:8000"),
        ({"PORT": "5000"}, "127.0.0.1:5000"),  # honcho's PORT stays on loopback
        ({"PORT": "5000", "NOTIFLOW_HOST": "0.0.0.0"}, "0.0.0.0:5000"),  # noqa: S104 (a platform's)
        ({"PORT": "5000", "NOTIFLOW_HOST": "::"}, "[::]:5000"),
        ({"PORT": "5000", "NOTIFLOW_BIND": "127.0.0.1:9000"}, "127.0.0.1:9000"),
        ({"NOTIFLOW_BIND": "unix:/run/notiflow.sock"}, "unix:/run/notiflow.sock"),
    ],
)
def test_web_binds_notiflow_bind_else_port_on_loopback_unless_notiflow_host_says(env, bind):
    assert web_bind(env) == bind


@pytest.mark.parametrize("port", ["http", "0", "70000", "-1"])
def test_a_port_that_is_not_a_port_is_refused(port):
    with pytest.raises(ValueError, match="PORT must be a TCP port number"):
        web_bind({"PORT": port})


def test_gunicorn_reads_its_address_from_the_environment(tmp_path):
    port = free_port()
    env = clean_env(PORT=str(port), DJANGO_STATIC_ROOT=str(tmp_path))
    gunicorn = str(Path(sys.executable).parent / "gunicorn")
    printed = subprocess.run(
        [gunicorn, "-c", "python:notiflow.gunicorn_conf", "--print-config", "notiflow.wsgi"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert printed.returncode == 0, printed.stderr
    assert re.search(rf"^bind\s+= \['127\.0\.0\.1:{port}'\]$", printed.stdout, re.M)

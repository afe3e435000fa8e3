"""`make run`'s processes (scripts/run.py): honcho starts them, and make run watches each listener
until it answers in its own protocol (HTTP, an SMTP greeting, a registered worker), so that what
it prints is what really listens."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path

from run_plan import ROOT, Listener, Plan

BIN = Path(sys.executable).parent
START_TIMEOUT_SECONDS = 120


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
                return int(json.load(response).get("count") or 0) >= listener.workers
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

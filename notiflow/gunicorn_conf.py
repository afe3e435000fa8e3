"""gunicorn's settings for every web process: `gunicorn -c python:notiflow.gunicorn_conf
notiflow.asgi` (Procfile, Dockerfile, make run, the test stack, the bench). Command-line options
and GUNICORN_CMD_ARGS override these; WEB_CONCURRENCY sets the number of worker processes.

The worker is gunicorn's own `asgi` worker (an event loop per process) serving notiflow/asgi.py,
whose adapter (common/asgi.py) runs the Django WSGI application in NOTIFLOW_WEB_THREADS [4]
threads per process, as the `gthread` worker ran it before: a client waiting on
`GET /api/triggers/<id>/?wait=` then holds no thread (docs/design/api.md, "Waiting for a trigger").
gunicorn's `threads` setting is not used (the asgi worker warns when it is set above 1);
`worker_connections` [1000] bounds the clients one process serves at once, waiting ones included.

Where it listens (`web_bind`): NOTIFLOW_BIND (`host:port`, gunicorn's own syntax) when set;
otherwise port PORT [8000] on NOTIFLOW_HOST [127.0.0.1]. PORT is the Procfile convention: honcho
and foreman set it for every process, and so do platforms that run a Procfile. The host stays
loopback unless NOTIFLOW_HOST says otherwise, because a shell or a process manager setting PORT
on a developer's machine must not put the admin on the network; on a platform that routes
traffic to the container's interface, set NOTIFLOW_HOST=0.0.0.0 (gunicorn alone would bind
0.0.0.0:$PORT whenever PORT is set).

Workers keep client connections alive between requests, and a kept connection stays with the
worker process that accepted it. The app is loaded before the workers fork
(`preload_app`), so every worker accepts from the moment it is started: loaded after the fork,
the first worker ready took every connection of a burst of new clients while the other was still
importing Django, and served them alone on one core (half the intake rate in BENCHMARKS.md).

gunicorn's control socket (gunicornc, gunicorn >= 25.1) is off: its default path
($XDG_RUNTIME_DIR/gunicorn.ctl, else ~/.gunicorn/gunicorn.ctl) is one for every instance a user
runs on the host, so a second instance took over the first one's, and `gunicornc` then reached
whichever came last. NOTIFLOW_CONTROL_SOCKET=<path> turns it on at a path of this instance's own
(e.g. under its run directory; mode 0600).
"""

import os
from collections.abc import Mapping
from typing import Any

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000


def web_bind(env: Mapping[str, str]) -> str:
    """The address the web process listens on, from NOTIFLOW_BIND, or NOTIFLOW_HOST and PORT."""
    bind = env.get("NOTIFLOW_BIND", "").strip()
    if bind:
        return bind
    host = env.get("NOTIFLOW_HOST", "").strip() or DEFAULT_HOST
    port = env.get("PORT", "").strip() or str(DEFAULT_PORT)
    if not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"PORT must be a TCP port number (1-65535), not {port!r}")
    # An IPv6 address needs brackets before the port.
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def control_socket_settings(env: Mapping[str, str]) -> dict[str, object]:
    """gunicorn's control socket settings: at NOTIFLOW_CONTROL_SOCKET when set, else none."""
    path = env.get("NOTIFLOW_CONTROL_SOCKET", "").strip()
    return {"control_socket": path} if path else {"control_socket_disable": True}


globals().update(control_socket_settings(os.environ))
bind = web_bind(os.environ)
workers = int(os.environ.get("WEB_CONCURRENCY", "2"))
worker_class = "asgi"
accesslog = "-"
preload_app = True


def metrics_group(binds: list[str]) -> str:
    """This instance's metrics group: `web@<its first address>`. Two web processes on one host
    (a second instance with other settings, a blue-green switch) listen on different addresses,
    so neither cleans the other's files when it starts."""
    return f"web@{binds[0]}" if binds else "web"


def on_starting(server: Any) -> None:
    """Metrics (common/metrics.py): the master cleans its group's directory under
    NOTIFLOW_METRICS_DIR and every worker it forks records there; called after the app is
    preloaded, before the first fork."""
    from common.metrics import metrics_process_start

    metrics_process_start(metrics_group(list(server.cfg.bind)))


def child_exit(server: Any, worker: Any) -> None:
    """Metrics: a worker that ended holds no stream open any more (common/metrics.py)."""
    from common.metrics import metrics_process_dead

    metrics_process_dead(worker.pid)

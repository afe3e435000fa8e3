"""The web process's application: `gunicorn -c python:notiflow.gunicorn_conf notiflow.asgi`, on
gunicorn's own `asgi` worker (notiflow/gunicorn_conf.py). The adapter is common/asgi.py; this
module wires it: Django's WSGI application, the waiting of `GET /api/triggers/<id>/?wait=`
(triggers/waiting.py) and the inbox's streams (inbox/stream.py), with their settings.
"""

from __future__ import annotations

import os

from common.asgi import WsgiAdapter

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "notiflow.settings")


def _application() -> WsgiAdapter:
    from django.conf import settings
    from django.core.wsgi import get_wsgi_application

    wsgi_app = get_wsgi_application()  # sets Django up: apps can be imported from here on

    from triggers.waiting import (
        WAIT_ENVIRON_KEY,
        TerminalWaiter,
        WaitSlot,
        waiter_connection_params,
    )

    def waiter() -> TerminalWaiter:
        return TerminalWaiter(
            interval=settings.NOTIFLOW_WAIT_POLL_SECONDS,
            connection_params=waiter_connection_params(),
        )

    from inbox.stream import (
        HEARTBEAT_SECONDS,
        STREAM_ENVIRON_KEY,
        InboxListener,
        StreamSlot,
        stream_follow,
    )

    return WsgiAdapter(
        wsgi_app,
        threads=settings.NOTIFLOW_WEB_THREADS,
        waiter_factory=waiter,
        wait_environ_key=WAIT_ENVIRON_KEY,
        slot_factory=lambda redispatch: WaitSlot(redispatch=redispatch),
        max_body=settings.DATA_UPLOAD_MAX_MEMORY_SIZE,
        stream_environ_key=STREAM_ENVIRON_KEY,
        stream_slot_factory=lambda redispatch: StreamSlot(redispatch=redispatch),
        listener_factory=lambda: InboxListener(
            url=settings.NOTIFLOW_CACHE_URL,
            per_recipient=settings.NOTIFLOW_INBOX_STREAMS_PER_RECIPIENT,
        ),
        stream_follow=stream_follow,
        heartbeat_seconds=HEARTBEAT_SECONDS,
    )


# Imported before gunicorn forks (preload_app): Django is set up here; the pool's threads and
# the waiter start in each worker process (lifespan startup, or its first request).
application = _application()

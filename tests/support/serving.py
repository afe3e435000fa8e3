"""The thread that serves a test's HTTP server (socketserver's serve_forever)."""

from __future__ import annotations

import socketserver
import threading

# How often serve_forever looks for shutdown(): its default of half a second was a wait in the
# teardown of every fixture that stops a server.
POLL_SECONDS = 0.02


def serving_thread(server: socketserver.BaseServer) -> threading.Thread:
    """A daemon thread, not yet started, serving `server` until its shutdown()."""
    return threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": POLL_SECONDS}, daemon=True
    )

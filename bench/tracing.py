"""Tracing's cost (docs/design/observability.md, "Traces"): `--tracing alternate` runs the rounds of
engine/baseline/dblimit/intake with tracing off, on, off, on… in one bench run, so that the two
are measured on the same machine at the same load; `--tracing on` traces every round.

On, every process the bench starts gets OTEL_EXPORTER_OTLP_ENDPOINT pointing at `OtlpSink`, an
OTLP/HTTP endpoint in the bench's own process that reads each export and answers 200, as a
collector on another host would (its reading costs the bench's process, not the measured ones).
The spans are made, batched, serialised and sent in full.
"""

from __future__ import annotations

import os
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

OTEL_VARIABLES = ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_SERVICE_NAME")


class OtlpSink:
    """Accepts OTLP/HTTP exports on loopback and counts their bytes."""

    def __init__(self) -> None:
        self.received_bytes = 0
        self.exports = 0
        sink = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                size = int(self.headers.get("Content-Length") or 0)
                self.rfile.read(size)
                sink.received_bytes += size
                sink.exports += 1
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def tracing_round(mode: str, round_: int) -> bool:
    """Whether round `round_` (from 0) traces under `--tracing mode`."""
    return mode == "on" or (mode == "alternate" and round_ % 2 == 1)


def tracing_env_set(sink: OtlpSink | None, on: bool) -> None:
    """Turn tracing on or off for the processes started from now on (bench.infra.base_env
    copies this process's environment)."""
    for name in OTEL_VARIABLES:
        os.environ.pop(name, None)
    if on and sink is not None:
        os.environ["OTEL_EXPORTER_OTLP_ENDPOINT"] = sink.endpoint
        os.environ["OTEL_SERVICE_NAME"] = "notiflow-bench"

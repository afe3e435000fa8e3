"""A real OTLP/HTTP trace receiver on loopback: what an OpenTelemetry Collector's `otlp` receiver
does on port 4318, reduced to `POST /v1/traces` with a protobuf body (gzip or not), decoded with
opentelemetry-proto. It keeps every span it received, flattened (`ReceivedSpan`).
"""

from __future__ import annotations

import gzip
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.common.v1.common_pb2 import AnyValue

from tests.support.serving import serving_thread


@dataclass(frozen=True)
class ReceivedSpan:
    service: str
    name: str
    kind: int  # opentelemetry.proto.trace.v1.Span.SpanKind
    trace_id: str  # hex
    span_id: str
    parent_span_id: str  # "" for a root
    attributes: dict[str, Any]
    status_code: int
    links: tuple[tuple[str, str], ...] = ()  # (trace id, span id) of each linked span, hex


def _value(value: AnyValue) -> Any:
    kind = value.WhichOneof("value")
    return getattr(value, kind) if kind else None


class OtlpReceiver:
    def __init__(self) -> None:
        self.spans: list[ReceivedSpan] = []
        self.lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        self.thread = serving_thread(self.server)

    @property
    def endpoint(self) -> str:
        """OTEL_EXPORTER_OTLP_ENDPOINT for it (the exporter appends /v1/traces)."""
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def start(self) -> OtlpReceiver:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def received(self) -> list[ReceivedSpan]:
        with self.lock:
            return list(self.spans)

    def trace(self, trace_id: str) -> list[ReceivedSpan]:
        return [span for span in self.received() if span.trace_id == trace_id]

    def wait_for(self, predicate: Any, *, timeout: float) -> list[ReceivedSpan]:
        """The spans received, once `predicate(spans)` holds; fails after `timeout` seconds."""
        deadline = time.monotonic() + timeout
        while True:
            spans = self.received()
            if predicate(spans):
                return spans
            if time.monotonic() > deadline:
                names = sorted({f"{s.service}:{s.name}" for s in spans})
                raise AssertionError(f"timed out after {timeout}s; received {names}")
            time.sleep(0.1)

    def _add(self, body: bytes) -> None:
        request = ExportTraceServiceRequest()
        request.ParseFromString(body)
        spans = []
        for resource_spans in request.resource_spans:
            resource = {a.key: _value(a.value) for a in resource_spans.resource.attributes}
            for scope_spans in resource_spans.scope_spans:
                for span in scope_spans.spans:
                    spans.append(
                        ReceivedSpan(
                            service=str(resource.get("service.name", "")),
                            name=span.name,
                            kind=span.kind,
                            trace_id=span.trace_id.hex(),
                            span_id=span.span_id.hex(),
                            parent_span_id=span.parent_span_id.hex(),
                            attributes={a.key: _value(a.value) for a in span.attributes},
                            status_code=span.status.code,
                            links=tuple(
                                (link.trace_id.hex(), link.span_id.hex()) for link in span.links
                            ),
                        )
                    )
        with self.lock:
            self.spans.extend(spans)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                if self.headers.get("Content-Encoding") == "gzip":
                    body = gzip.decompress(body)
                if self.path != "/v1/traces" or "protobuf" not in self.headers.get(
                    "Content-Type", ""
                ):
                    self.send_response(404)
                    self.end_headers()
                    return
                receiver._add(body)
                answer = ExportTraceServiceResponse().SerializeToString()
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            def log_message(self, *args: Any) -> None:
                pass

        return Handler

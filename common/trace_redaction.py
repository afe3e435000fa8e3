"""Capability URLs kept out of exported spans (docs/security/findings.md, "Spans carry no capability
URLs"). Imported by common/tracing.py only once tracing is on.

The instrumentations write whole URLs into spans: a request's (`http.url`, `http.target`) holds
the preference page's token or a recipient's id in its path, an outgoing call's holds a Slack or
Teams webhook's secret path, a web push endpoint's device token, a webhook endpoint's query. A
URL in such a place is a credential or a person's id. `RedactingSpanProcessor` stands between
the spans and the exporter's processor and hands it a copy of each ended span with

- a served request's path replaced by its route template (`http.route`, e.g.
  `deliveries/preferences/<str:token>/`), or by REDACTED when no route matched;
- an outgoing call's path replaced by REDACTED: the host says whom it called;
- every query string replaced by REDACTED;
- and, in any other text (an exception's message, a status description), an absolute URL cut
  to its scheme and host, and urllib3's `url: /path` to REDACTED.

Method, host, port, status code and route stay: the span still says what was called and how it
went.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from opentelemetry.context import Context
from opentelemetry.sdk.trace import Event, ReadableSpan, Span, SpanProcessor
from opentelemetry.trace import SpanKind, Status

REDACTED = "[redacted]"

_FULL_URLS = frozenset({"http.url", "url.full"})
_PATHS = frozenset({"http.target", "url.path"})
_QUERIES = frozenset({"url.query"})
_ABSOLUTE_URL = re.compile(r"\b([a-zA-Z][a-zA-Z0-9+.-]*://[^/\s'\"?#]*)([^\s'\"]*)")
_URLLIB3_PATH = re.compile(r"(\burl: )\S+")


def _path(route: str | None) -> str:
    return "/" + route.lstrip("/") if route else "/" + REDACTED


def _origin(url: str) -> str:
    """`url`'s scheme, host and port (no user or password)."""
    parts = urlsplit(url)
    port = f":{parts.port}" if parts.port is not None else ""
    return f"{parts.scheme}://{parts.hostname or ''}{port}"


def _full_url(value: str, route: str | None) -> str:
    query = f"?{REDACTED}" if urlsplit(value).query else ""
    return _origin(value) + _path(route) + query


def _text(value: str) -> str:
    def cut(found: re.Match[str]) -> str:
        rest = found.group(2)
        return _origin(found.group(0)) + (f"/{REDACTED}" if rest.strip("/") else rest)

    return _URLLIB3_PATH.sub(rf"\g<1>{REDACTED}", _ABSOLUTE_URL.sub(cut, value))


def redacted_attributes(attributes: Mapping[str, Any], *, kind: SpanKind) -> dict[str, Any]:
    """`attributes` (a span's or an event's) without capability URLs (see the module). A served
    request's path becomes its route template; any other path, REDACTED."""
    route = attributes.get("http.route") if kind == SpanKind.SERVER else None
    route = route if isinstance(route, str) else None
    redacted: dict[str, Any] = {}
    for key, value in attributes.items():
        if not isinstance(value, str):
            redacted[key] = value
        elif key in _FULL_URLS:
            redacted[key] = _full_url(value, route)
        elif key in _PATHS:
            query = f"?{REDACTED}" if "?" in value else ""
            redacted[key] = _path(route) + query
        elif key in _QUERIES:
            redacted[key] = REDACTED if value else value
        else:
            redacted[key] = _text(value)
    return redacted


def redacted_span(span: ReadableSpan) -> ReadableSpan:
    """A copy of `span` whose attributes, events and status carry no capability URL."""
    status = span.status
    if status.description:
        status = Status(status.status_code, _text(status.description))
    return ReadableSpan(
        name=span.name,
        context=span.context,
        parent=span.parent,
        resource=span.resource,
        attributes=redacted_attributes(span.attributes or {}, kind=span.kind),
        events=[
            Event(
                event.name,
                redacted_attributes(event.attributes or {}, kind=span.kind),
                event.timestamp,
            )
            for event in span.events
        ],
        links=span.links,
        kind=span.kind,
        status=status,
        start_time=span.start_time,
        end_time=span.end_time,
        instrumentation_scope=span.instrumentation_scope,
    )


class RedactingSpanProcessor(SpanProcessor):
    """`inner` (the exporter's processor), given each ended span redacted (`redacted_span`)."""

    def __init__(self, inner: SpanProcessor) -> None:
        self.inner = inner

    def on_start(self, span: Span, parent_context: Context | None = None) -> None:
        self.inner.on_start(span, parent_context=parent_context)

    def on_end(self, span: ReadableSpan) -> None:
        self.inner.on_end(redacted_span(span))

    def shutdown(self) -> None:
        self.inner.shutdown()

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return self.inner.force_flush(timeout_millis)

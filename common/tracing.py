"""OpenTelemetry traces (docs/design/observability.md, "Traces"), configured only by the standard OTEL_*
variables and off unless they ask for an exporter.

On (`tracing_start`, called once per process by notiflow/apps.py): a tracer provider whose
resource, sampler, exporter and batching come from the environment (OTEL_SERVICE_NAME,
OTEL_RESOURCE_ATTRIBUTES, OTEL_TRACES_SAMPLER, OTEL_EXPORTER_OTLP_*, OTEL_BSP_*), and the
maintained instrumentations of Django (a span per request, continuing the client's
`traceparent`), psycopg (a span per statement), requests and urllib3 (a span per HTTP call).
Every span is exported through common/trace_redaction.py, which takes the capability URLs
(tokens, webhook paths, push endpoints, recipient ids) out of it. Only what the
instrumentations cannot know is written here: a step's span, whose parent is the
run's stored trace context (`step_span`), a provider call's (`provider_span`), and a webhook
delivery's of an event about a run, whose parent is that run's stored context too
(`delivery_span`).

Off, nothing is imported from OpenTelemetry and nothing is instrumented: the hot path asks
`active()`, a module global, and goes on.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager, nullcontext
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.sampling import Sampler
    from opentelemetry.trace import Span, Tracer

_provider: TracerProvider | None = None
_tracer: Tracer | None = None
_NOTHING: AbstractContextManager[None] = nullcontext()

# The exporters OTEL_TRACES_EXPORTER may name here (the OTLP one over HTTP/protobuf only).
EXPORTERS = ("otlp", "console")


def tracing_wanted(env: Mapping[str, str] = os.environ) -> bool:
    """Whether the environment asks for traces: an OTLP endpoint, or OTEL_TRACES_EXPORTER set to
    an exporter, and OTEL_SDK_DISABLED not true. (The SDK's own default, an OTLP exporter to
    localhost, is not taken: unset, tracing is off.)"""
    if env.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return False
    exporter = env.get("OTEL_TRACES_EXPORTER", "").strip().lower()
    if exporter:
        return exporter != "none"
    return bool(
        env.get("OTEL_EXPORTER_OTLP_ENDPOINT", "").strip()
        or env.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "").strip()
    )


def active() -> bool:
    """Whether this process traces (the hot path's one question)."""
    return _tracer is not None


def tracing_start(env: Mapping[str, str] = os.environ) -> bool:
    """Configure tracing from the environment, once per process; True when it is on.

    Safe before a fork (gunicorn's preload, Celery's prefork pool): the SDK restarts its batch
    exporter's thread in each child."""
    global _provider, _tracer
    if _tracer is not None:
        return True
    if not tracing_wanted(env):
        return False
    from opentelemetry import trace
    from opentelemetry.instrumentation.django import DjangoInstrumentor
    from opentelemetry.instrumentation.psycopg import PsycopgInstrumentor
    from opentelemetry.instrumentation.requests import RequestsInstrumentor
    from opentelemetry.instrumentation.urllib3 import URLLib3Instrumentor
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    provider = TracerProvider()  # resource and sampler from OTEL_* (the SDK reads them)
    provider.sampler = roots_of_our_own(provider.sampler)
    from common.trace_redaction import RedactingSpanProcessor

    # Every span goes out through the redaction: no capability URL leaves in a span.
    provider.add_span_processor(RedactingSpanProcessor(BatchSpanProcessor(_exporter(env))))
    trace.set_tracer_provider(provider)
    DjangoInstrumentor().instrument(tracer_provider=provider)
    PsycopgInstrumentor().instrument(tracer_provider=provider, skip_dep_check=True)
    RequestsInstrumentor().instrument(tracer_provider=provider)
    URLLib3Instrumentor().instrument(tracer_provider=provider)
    from common import db

    db.prepared_cursor_set(_traced_prepared_cursor(provider))
    _provider, _tracer = provider, provider.get_tracer("notiflow")
    return True


def _exporter(env: Mapping[str, str]) -> Any:
    exporter = env.get("OTEL_TRACES_EXPORTER", "otlp").strip().lower() or "otlp"
    if exporter == "console":
        from opentelemetry.sdk.trace.export import ConsoleSpanExporter

        return ConsoleSpanExporter()
    protocol = (
        env.get("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")
        or env.get("OTEL_EXPORTER_OTLP_PROTOCOL")
        or ""
    ).strip() or "http/protobuf"
    if exporter != "otlp" or protocol != "http/protobuf":
        raise ValueError(
            f"OTEL_TRACES_EXPORTER={exporter!r} with protocol {protocol!r}: Notiflow exports "
            "traces with OTLP over HTTP/protobuf (`otlp`, the collector's port 4318) or to "
            "`console`; set OTEL_TRACES_EXPORTER=none to turn tracing off"
        )
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

    return OTLPSpanExporter()  # endpoint, headers, timeout and compression from OTEL_*


def roots_of_our_own(inner: Sampler) -> Sampler:
    """`inner`, the sampler the environment chose, without the traces of one parentless CLIENT
    span (_RootsOfOurOwn)."""
    return cast("Sampler", _RootsOfOurOwn(inner))


class _RootsOfOurOwn:
    """The environment's sampler, except that a database statement or an HTTP call outside any
    request or step (the claim before its step span, the sweeper, beat) starts no trace of its
    own: a CLIENT span without a parent is dropped."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def should_sample(
        self,
        parent_context: Any,
        trace_id: int,
        name: str,
        kind: Any = None,
        attributes: Any = None,
        links: Any = None,
        trace_state: Any = None,
    ) -> Any:
        from opentelemetry.sdk.trace.sampling import Decision, SamplingResult
        from opentelemetry.trace import SpanKind, get_current_span

        parent = get_current_span(parent_context).get_span_context()
        if not parent.is_valid and kind == SpanKind.CLIENT:
            return SamplingResult(Decision.DROP)
        return self.inner.should_sample(
            parent_context, trace_id, name, kind, attributes, links, trace_state
        )

    def get_description(self) -> str:
        return f"RootsOfOurOwn{{{self.inner.get_description()}}}"


def _traced_prepared_cursor(provider: TracerProvider) -> type:
    """The cursor of common/db.py's prepared statements (the hot path's: intake, the claim, the
    release), traced as the psycopg instrumentation traces Django's cursors: those statements
    open a cursor of their own, which the instrumentation's cursor factory does not reach."""
    import psycopg
    from opentelemetry.instrumentation.psycopg import CursorTracer, DatabaseApiIntegration

    integration = DatabaseApiIntegration(
        "notiflow.prepared",
        "postgresql",
        connection_attributes=_CONNECTION_ATTRIBUTES,
        tracer_provider=provider,
        # The module, as the instrumentation itself passes it (its hint says a callable).
        connect_module=psycopg,  # type: ignore[arg-type]
    )
    tracer = CursorTracer(integration)

    class TracedPreparedCursor(psycopg.Cursor):
        def execute(self, *args: Any, **kwargs: Any) -> Any:
            return tracer.traced_execution(self, super().execute, *args, **kwargs)

    return TracedPreparedCursor


_CONNECTION_ATTRIBUTES = {
    "database": "info.dbname",
    "port": "info.port",
    "host": "info.host",
    "user": "info.user",
}


# --- the run's trace ---------------------------------------------------------------------------


def traceparent() -> str:
    """The current span's W3C traceparent ("00-<trace id>-<span id>-<flags>"), or empty when
    there is none (or tracing is off): what intake stores with a run."""
    if _tracer is None:
        return ""
    from opentelemetry.trace import get_current_span

    context = get_current_span().get_span_context()
    if not context.is_valid:
        return ""
    return f"00-{context.trace_id:032x}-{context.span_id:016x}-{int(context.trace_flags):02x}"


def trace_id(trace_context: str) -> str | None:
    """The trace id of a stored traceparent, or None for an empty or malformed one."""
    parts = trace_context.split("-")
    if len(parts) != 4 or len(parts[1]) != 32 or parts[1] == "0" * 32:
        return None
    return parts[1]


def clock_ns() -> int:
    """A span's start time (before the claim, whose span the step's cannot be the parent of)."""
    return time.time_ns()


@contextmanager
def step_span(
    *,
    trace_context: str,
    trigger_id: str,
    workflow_key: str,
    node_id: str,
    node_type: str,
    attempt: int,
    started_ns: int | None,
) -> Iterator[Span]:
    """The span of one step, a child of the span intake stored with the run (`trace_context`),
    current while it runs: the step's statements, provider call and HTTP calls are its
    children. Without a stored context (a run created while tracing was off) it starts a trace
    of its own."""
    assert _tracer is not None
    from opentelemetry.propagate import extract
    from opentelemetry.trace import SpanKind

    parent = extract({"traceparent": trace_context}) if trace_context else None
    with _tracer.start_as_current_span(
        f"step {node_type}",
        context=parent,
        kind=SpanKind.CONSUMER,
        start_time=started_ns,
        attributes={
            "notiflow.trigger.id": trigger_id,
            "notiflow.workflow.key": workflow_key,
            "notiflow.node.id": node_id,
            "notiflow.node.type": node_type,
            "notiflow.step.attempt": attempt,
        },
    ) as span:
        yield span


def step_outcome(span: Span, *, status: str | None, error: str) -> None:
    """Note how the step ended on its span: the run's new status, and an error status when the
    step failed."""
    from opentelemetry.trace import Status, StatusCode

    span.set_attribute("notiflow.trigger.status", status or "")
    if error:
        span.set_status(Status(StatusCode.ERROR, error[:500]))


def provider_span(*, channel: str, provider: str) -> AbstractContextManager[Any]:
    """The span of a provider call (a child of the step's), or nothing while tracing is off."""
    if _tracer is None:
        return _NOTHING
    from opentelemetry.trace import SpanKind

    return _tracer.start_as_current_span(
        f"send {channel} {provider}",
        kind=SpanKind.CLIENT,
        attributes={"notiflow.channel": channel, "notiflow.provider": provider},
    )


@contextmanager
def delivery_span(
    *,
    trace_context: str,
    trigger_id: str,
    workflow_key: str,
    event_type: str,
    delivery_id: int,
    attempt: int,
    started_ns: int | None,
) -> Iterator[Span]:
    """The span of one webhook delivery's attempt of an event about a run, a child of the span
    intake stored with the run (`trace_context`, which must be a valid one), current while it
    runs: the POST's HTTP span (the urllib3 instrumentation) and the finish's statement are its
    children. A PRODUCER: it hands the event on to a receiver, which may continue the trace
    from the request's `traceparent` header."""
    assert _tracer is not None
    from opentelemetry.propagate import extract
    from opentelemetry.trace import SpanKind

    with _tracer.start_as_current_span(
        f"deliver {event_type}",
        context=extract({"traceparent": trace_context}),
        kind=SpanKind.PRODUCER,
        start_time=started_ns,
        attributes={
            "notiflow.trigger.id": trigger_id,
            "notiflow.workflow.key": workflow_key,
            "notiflow.event.type": event_type,
            "notiflow.webhook.delivery.id": delivery_id,
            "notiflow.webhook.attempt": attempt,
        },
    ) as span:
        yield span


def delivery_outcome(span: Span, *, answer: str, status: str | None, error: str) -> None:
    """Note how the attempt ended on its span: what the answer meant (delivered, gone, failed),
    the delivery's new status (empty when its lease was lost), and an error status unless it
    was delivered."""
    from opentelemetry.trace import Status, StatusCode

    span.set_attribute("notiflow.webhook.outcome", answer)
    span.set_attribute("notiflow.webhook.status", status or "")
    if answer != "delivered":
        span.set_status(Status(StatusCode.ERROR, error[:500]))


def linked_roots(name: str, *, link: str, attributes: list[dict[str, str]]) -> list[str]:
    """One new trace for each of `attributes` (a run the fan-out made), its root an instant span
    `name` that links to the span of another trace (`link`, a stored traceparent: the fan-out's
    intake request): the traceparents to store with the runs, so each run's steps are one trace
    of its own, reached from the fan-out's. Empty contexts while tracing is off or for an empty
    or malformed `link`."""
    if _tracer is None or trace_id(link) is None:
        return [""] * len(attributes)
    from opentelemetry.context import Context
    from opentelemetry.propagate import extract
    from opentelemetry.trace import Link, SpanKind, get_current_span

    linked = get_current_span(extract({"traceparent": link})).get_span_context()
    contexts = []
    for each in attributes:
        span = _tracer.start_span(
            name,
            context=Context(),  # a root: a trace of its own
            kind=SpanKind.PRODUCER,
            links=[Link(linked, {"notiflow.link": "fanout"})] if linked.is_valid else [],
            attributes=each,
        )
        span.end()
        made = span.get_span_context()
        contexts.append(f"00-{made.trace_id:032x}-{made.span_id:016x}-{int(made.trace_flags):02x}")
    return contexts


def span_link(trace_context: str) -> None:
    """Link the current span (a step's) to the span of another trace (`trace_context`, a stored
    traceparent): the request that posted the event resuming the run. Nothing while tracing is
    off, or for an empty or malformed context."""
    if _tracer is None or trace_id(trace_context) is None:
        return
    from opentelemetry.propagate import extract
    from opentelemetry.trace import get_current_span

    linked = get_current_span(extract({"traceparent": trace_context})).get_span_context()
    if linked.is_valid:
        get_current_span().add_link(linked, {"notiflow.link": "event"})

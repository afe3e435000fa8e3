"""Traces in-process (docs/design/observability.md, "Traces"): when tracing is on and when it is off, with the
SDK's in-memory exporter in place of OTLP. The processes and the OTLP receiver end to end:
tests/ops/test_traces.py."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta

import pytest
import requests
from django.utils import timezone
from opentelemetry.instrumentation.requests import RequestsInstrumentor
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind

from common import tracing
from common.trace_redaction import RedactingSpanProcessor
from events.hooks import RUN_TRACE_CONTEXT
from events.models import WebhookDelivery
from events.services.dispatcher import delivery_send
from events.services.endpoints import endpoint_ping
from tests.events.support import endpoint_on
from tests.factories import WorkflowFactory, chain, sms_node
from tests.support.smtp import free_port
from triggers import sql
from triggers.models import TriggerInstance
from triggers.representation import trigger_json
from triggers.services import trigger_create
from workers.services.engine import step_execute


@pytest.mark.parametrize(
    ("env", "wanted"),
    [
        ({}, False),
        ({"OTEL_SERVICE_NAME": "notiflow"}, False),
        ({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"}, True),
        ({"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:4318/v1/traces"}, True),
        ({"OTEL_TRACES_EXPORTER": "console"}, True),
        ({"OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://x:4318"}, False),
        ({"OTEL_SDK_DISABLED": "true", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://x:4318"}, False),
    ],
)
def test_tracing_is_on_only_when_the_standard_variables_name_an_exporter(env, wanted):
    assert tracing.tracing_wanted(env) is wanted


def test_an_exporter_other_than_otlp_over_http_is_refused_naming_what_works():
    env = {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://x:4317", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}
    with pytest.raises(ValueError, match="HTTP/protobuf"):
        tracing._exporter(env)


def test_the_plain_intake_statement_writes_no_trace_context_and_the_traced_one_only_adds_it():
    assert "trace_context" not in sql.INTAKE_SQL.split("RETURNING")[0]
    assert "%(trace_context)s" not in sql.INTAKE_MANY_SQL

    def statement(text: str) -> str:  # without its comments
        return "".join(line for line in text.splitlines(True) if not line.startswith("--"))

    for plain, traced in [
        (sql.INTAKE_SQL, sql.INTAKE_TRACED_SQL),
        (sql.INTAKE_MANY_SQL, sql.INTAKE_MANY_TRACED_SQL),
    ]:
        assert statement(traced).replace(", trace_context)", ")").replace(
            ", %(trace_context)s::text\n", "\n"
        ) == statement(plain)


def test_a_stored_context_gives_the_trace_id_and_a_malformed_one_none():
    parent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
    assert tracing.trace_id(parent) == "4bf92f3577b34da6a3ce929d0e0e4736"
    for bad in ["", "00-abc-def-01", "00-" + "0" * 32 + "-00f067aa0ba902b7-01"]:
        assert tracing.trace_id(bad) is None


@pytest.fixture
def spans(monkeypatch) -> Iterator[InMemorySpanExporter]:
    """Tracing on in this process, into memory (the instrumentations are not installed: the
    module's own spans and intake's stored context are what is checked here)."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.sampler = tracing.roots_of_our_own(provider.sampler)
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    monkeypatch.setattr(tracing, "_tracer", provider.get_tracer("test"))
    yield exporter
    provider.shutdown()


@pytest.mark.django_db
def test_intake_stores_its_span_and_each_step_is_its_child_with_the_provider_call(spans, settings):
    settings.NOTIFLOW_TRIGGER_REQUIRES_WORKER = False
    definition = chain(sms_node("one"), sms_node("two"), sms_node("three"))
    workflow = WorkflowFactory(definition=definition)
    tracer = tracing._tracer
    assert tracer is not None
    with tracer.start_as_current_span("POST api/triggers/", kind=SpanKind.SERVER) as intake:
        run, created = trigger_create(
            workflow_key=workflow.key,
            idempotency_key="k",
            payload={"name": "Ada", "phone": "+15550100"},
        )
    context = intake.get_span_context()
    assert created
    stored = TriggerInstance.objects.get(pk=run.pk)
    assert (
        stored.trace_context
        == f"00-{context.trace_id:032x}-{context.span_id:016x}-{int(context.trace_flags):02x}"
    )
    assert trigger_json(stored)["trace_id"] == f"{context.trace_id:032x}"

    for _ in definition["nodes"]:  # each step made due at once (helpers.run_to_the_end)
        step_execute(trigger_id=str(run.pk), worker_id="w")
        TriggerInstance.objects.filter(pk=run.pk).update(
            available_at=timezone.now() - timedelta(hours=1)
        )
    done = TriggerInstance.objects.get(pk=run.pk)

    assert done.status == "completed"
    finished = spans.get_finished_spans()
    steps = [s for s in finished if s.name == "step sms"]
    assert [s.attributes["notiflow.node.id"] for s in steps] == ["one", "two", "three"]
    for step in steps:
        assert step.context.trace_id == context.trace_id
        assert step.parent is not None and step.parent.span_id == context.span_id
        [send] = [s for s in finished if s.parent and s.parent.span_id == step.context.span_id]
        assert (send.name, send.kind) == ("send sms console", SpanKind.CLIENT)
    assert steps[-1].attributes["notiflow.trigger.status"] == "completed"


@pytest.mark.django_db
def test_while_tracing_is_off_intake_stores_nothing_and_no_span_is_made(settings):
    settings.NOTIFLOW_TRIGGER_REQUIRES_WORKER = False
    assert not tracing.active()
    workflow = WorkflowFactory(definition=chain(sms_node("one")))
    run, _ = trigger_create(workflow_key=workflow.key, idempotency_key="k", payload={})
    assert TriggerInstance.objects.get(pk=run.pk).trace_context == ""
    assert trigger_json(run)["trace_id"] is None
    assert tracing.traceparent() == ""
    assert tracing.provider_span(channel="sms", provider="console") is tracing._NOTHING


def test_a_parentless_client_span_starts_no_trace_but_a_parentless_step_does(spans):
    tracer = tracing._tracer
    assert tracer is not None
    with tracer.start_as_current_span("SELECT", kind=SpanKind.CLIENT):
        pass
    with (
        tracer.start_as_current_span("step sms", kind=SpanKind.CONSUMER),
        tracer.start_as_current_span("SELECT", kind=SpanKind.CLIENT),
    ):
        pass
    names = sorted(s.name for s in spans.get_finished_spans())
    assert names == ["SELECT", "step sms"]


PAYLOAD = {"name": "Ada", "phone": "+15550100"}


def _run_to_the_end(run: TriggerInstance, nodes: int) -> TriggerInstance:
    for _ in range(nodes):  # each step made due at once (helpers.run_to_the_end)
        step_execute(trigger_id=str(run.pk), worker_id="w")
        TriggerInstance.objects.filter(pk=run.pk).update(
            available_at=timezone.now() - timedelta(hours=1)
        )
    return TriggerInstance.objects.get(pk=run.pk)


@pytest.mark.django_db
def test_a_webhook_delivery_of_an_event_about_a_run_is_a_child_of_the_runs_stored_context(
    spans, settings, receiver
):
    settings.NOTIFLOW_TRIGGER_REQUIRES_WORKER = False
    workflow = WorkflowFactory(definition=chain(sms_node("one")))
    endpoint, path = endpoint_on(receiver, events=["trigger.completed"], workflows=[workflow.key])
    tracer = tracing._tracer
    assert tracer is not None
    with tracer.start_as_current_span("POST api/triggers/", kind=SpanKind.SERVER) as intake:
        run, _ = trigger_create(workflow_key=workflow.key, idempotency_key="k", payload=PAYLOAD)
    assert _run_to_the_end(run, 1).status == "completed"
    delivery = WebhookDelivery.objects.get(endpoint=endpoint)
    spans.clear()

    assert delivery_send(delivery.pk, worker_id="w") == "delivered"
    # A ping is about no run: delivered without a span (its HTTP call would start no trace).
    ping = endpoint_ping(endpoint).deliveries.get()
    assert delivery_send(ping.pk, worker_id="w") == "delivered"

    [span] = spans.get_finished_spans()
    context = intake.get_span_context()
    assert (span.name, span.kind) == ("deliver trigger.completed", SpanKind.PRODUCER)
    assert span.context.trace_id == context.trace_id
    assert span.parent is not None and span.parent.span_id == context.span_id
    assert span.attributes["notiflow.trigger.id"] == str(run.pk)
    assert span.attributes["notiflow.webhook.delivery.id"] == delivery.pk
    assert span.attributes["notiflow.webhook.attempt"] == 1
    assert span.attributes["notiflow.webhook.outcome"] == "delivered"
    assert span.attributes["notiflow.webhook.status"] == "delivered"
    assert [r.event["type"] for r in receiver.wait_for(path, 2)] == [
        "notiflow.trigger.completed",
        "notiflow.ping",
    ]


@pytest.mark.django_db
def test_while_tracing_is_off_a_delivery_reads_no_trace_context(settings, receiver, monkeypatch):
    settings.NOTIFLOW_TRIGGER_REQUIRES_WORKER = False
    assert not tracing.active()
    read: list[object] = []
    monkeypatch.setattr(RUN_TRACE_CONTEXT, "functions", [read.append])
    workflow = WorkflowFactory(definition=chain(sms_node("one")))
    endpoint, _ = endpoint_on(receiver, events=["trigger.completed"], workflows=[workflow.key])
    run, _ = trigger_create(workflow_key=workflow.key, idempotency_key="k", payload=PAYLOAD)
    assert _run_to_the_end(run, 1).status == "completed"

    delivery = WebhookDelivery.objects.get(endpoint=endpoint)
    assert delivery_send(delivery.pk, worker_id="w") == "delivered"
    assert read == []


@pytest.mark.parametrize(
    "path",
    [
        "/services/T0SECRET/B0SECRET/xoxSECRET",  # a Slack incoming webhook
        "/webhookb2/SECRET@tenant/IncomingWebhook/SECRET/SECRET",  # a Teams webhook
        "/fcm/send/SECRET-device-token",  # a web push endpoint
        "/hook?key=SECRET",  # a webhook endpoint's query
    ],
)
def test_an_outgoing_calls_path_and_query_are_not_exported(path):
    """The requests instrumentation's span of a call that failed, as exported through
    common/trace_redaction.py: no part of the path or query in its attributes, its exception
    event or its status; the method and host stay. (End to end: tests/ops/test_traces.py.)"""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(RedactingSpanProcessor(SimpleSpanProcessor(exporter)))
    RequestsInstrumentor().instrument(tracer_provider=provider)
    try:
        with pytest.raises(requests.ConnectionError):
            requests.post(f"http://127.0.0.1:{free_port()}{path}", json={}, timeout=5)
    finally:
        RequestsInstrumentor().uninstrument()
        provider.shutdown()
    [span] = exporter.get_finished_spans()
    attributes = dict(span.attributes or {})
    exported = [
        *attributes.values(),
        *(value for event in span.events for value in (event.attributes or {}).values()),
        span.status.description or "",
    ]
    assert span.events and not [value for value in exported if "SECRET" in str(value)]
    assert attributes["http.method"] == "POST"
    url = str(attributes["http.url"])
    assert url.startswith("http://127.0.0.1:")
    assert url.endswith("/[redacted]" + ("?[redacted]" * ("?" in path)))

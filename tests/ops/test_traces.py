"""OpenTelemetry traces end to end (docs/design/observability.md, "Traces"): a web process and a worker of
their own, configured only by OTEL_* variables, export to a real OTLP/HTTP receiver on loopback
(tests/support/otlp.py). A run is one trace: the client's, then the intake request, then a span
per step, each with its provider call and its statements, and a span per webhook delivery of an
event about the run, with its POST."""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from typing import Any

import pytest
import requests
from django.conf import settings

from events.services.endpoints import endpoint_create, endpoint_delete
from recipients.models import Fanout, Recipient, Topic, TopicSubscription
from registry.selectors import live_workers_by_queue
from tests.conftest import STACK_SETTINGS, TEST_BROKER_URL, broker_clear, unique
from tests.events.support import endpoint_on
from tests.factories import WorkflowFactory, chain, sms_node
from tests.support.otlp import OtlpReceiver, ReceivedSpan
from tests.support.smtp import free_port
from tests.support.stack import Stack, wait_for, wait_until_up
from tests.workers.helpers import wait_terminal
from triggers.api_keys import api_key_create
from triggers.models import ApiKeyScope, TriggerInstance
from triggers.sql import RELEASE_FUNCTION

pytestmark = pytest.mark.e2e

QUEUE = "traced"  # the queue of workflows `traced.*`: only this module's worker serves it
HOOKS = "traced-hooks"  # its webhook dispatcher's queue (NOTIFLOW_WEBHOOK_QUEUE), its own too
SERVER, CLIENT, PRODUCER, CONSUMER = 2, 3, 4, 5  # opentelemetry.proto Span.SpanKind


@pytest.fixture(scope="module")
def otlp() -> Iterator[OtlpReceiver]:
    receiver = OtlpReceiver().start()
    yield receiver
    receiver.stop()


@pytest.fixture(scope="module")
def traced_stack(otlp, django_db_setup, django_db_blocker, tmp_path_factory) -> Iterator[Stack]:
    """gunicorn and one worker (queues `traced` and `traced-hooks`) on the test database,
    tracing to `otlp`."""
    workdir = tmp_path_factory.mktemp("traced")
    broker_clear(TEST_BROKER_URL)
    db = settings.DATABASES["default"]
    assert db["NAME"].startswith("test_"), f"refusing to run the stack on {db['NAME']!r}"
    env = {
        **os.environ,
        **STACK_SETTINGS,
        "DJANGO_SETTINGS_MODULE": "notiflow.settings",
        "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
        "CELERY_BROKER_URL": TEST_BROKER_URL,
        "NOTIFLOW_SMS_BACKEND": "file",
        "NOTIFLOW_SMS_FILE": str(workdir / "sms.jsonl"),
        "DJANGO_STATIC_ROOT": str(workdir / "static"),
        "NOTIFLOW_METRICS_DIR": str(workdir / "metrics"),
        "PYTHONUNBUFFERED": "1",
        "NOTIFLOW_WEBHOOK_QUEUE": HOOKS,
        # Nothing but the standard variables turns tracing on.
        "OTEL_EXPORTER_OTLP_ENDPOINT": otlp.endpoint,
        "OTEL_BSP_SCHEDULE_DELAY": "200",
    }
    stack = Stack(env=env, workdir=workdir)
    stack.collectstatic()
    stack.web_process("web", port := free_port(), env={"OTEL_SERVICE_NAME": "notiflow-web"})
    stack.base_url = f"http://127.0.0.1:{port}"
    stack.worker(
        "traced", queues=[QUEUE, HOOKS], extra_env={"OTEL_SERVICE_NAME": "notiflow-worker"}
    )
    try:
        with django_db_blocker.unblock():
            _, stack.env["API_KEY"] = api_key_create(name=unique("traces"), scope=ApiKeyScope.ADMIN)
        wait_until_up(stack, workers=1, api_key=stack.env["API_KEY"])

        def served() -> bool:  # this module's worker, not a live one of another stack
            with django_db_blocker.unblock():
                return QUEUE in live_workers_by_queue()

        wait_for(served, timeout=60, interval=0.2, message=f"a live worker on {QUEUE!r}")
        yield stack
    except BaseException:
        print(stack.logs())
        raise
    finally:
        stack.stop()


def children(spans: list[ReceivedSpan], parent: ReceivedSpan) -> list[ReceivedSpan]:
    return [span for span in spans if span.parent_span_id == parent.span_id]


def traced_post(stack: Stack, workflow_key: str, trace_id: str, client_span: str) -> Any:
    """POST a trigger of `workflow_key` as a client whose span `client_span` is in `trace_id`."""
    return requests.post(
        f"{stack.base_url}/api/triggers/",
        json={
            "workflow": workflow_key,
            "idempotency_key": unique("traced"),
            "payload": {"name": "Ada", "phone": "+15550100"},
        },
        headers={
            "Authorization": f"Bearer {stack.env['API_KEY']}",
            "traceparent": f"00-{trace_id}-{client_span}-01",
        },
        timeout=10,
    )


def test_a_run_of_three_steps_is_one_trace_from_the_clients_span_to_each_provider_call(
    traced_stack, otlp, django_db_blocker
):
    with django_db_blocker.unblock():
        workflow = WorkflowFactory(
            key=f"{QUEUE}.{secrets.token_hex(5)}",
            definition=chain(sms_node("one"), sms_node("two"), sms_node("three")),
        )
    trace_id, client_span = secrets.token_hex(16), secrets.token_hex(8)

    response = traced_post(traced_stack, workflow.key, trace_id, client_span)

    assert response.status_code == 201, response.text
    assert response.json()["trace_id"] == trace_id
    with django_db_blocker.unblock():
        run = wait_terminal(response.json()["id"])
        assert TriggerInstance.objects.get(pk=run.pk).trace_id == trace_id
    assert run.status == "completed"

    def whole(spans: list[ReceivedSpan]) -> bool:
        mine = [s for s in spans if s.trace_id == trace_id]
        steps = [s for s in mine if s.name.startswith("step ")]
        sends = [s for s in mine if s.name.startswith("send sms")]
        # The web's export too: its intake span comes from another process's batch exporter.
        intake = [s for s in mine if s.parent_span_id == client_span]
        return len(steps) == 3 and len(sends) == 3 and len(intake) == 1

    otlp.wait_for(whole, timeout=30)
    spans = otlp.trace(trace_id)
    [intake] = [s for s in spans if s.parent_span_id == client_span]
    assert (intake.service, intake.kind) == ("notiflow-web", SERVER)
    assert intake.attributes.get("http.route", "").startswith("api/triggers")
    # The intake's statement, with its text and no parameter (no payload leaves in a span).
    # (The request's other statements, such as the API key's lookup or a first request's
    # set-up, are its children too.)
    statements = [s for s in children(spans, intake) if s.kind == CLIENT]
    inserts = [
        s for s in statements if "INSERT INTO trigger_instance" in s.attributes["db.statement"]
    ]
    assert len(inserts) == 1, [s.attributes["db.statement"][:60] for s in statements]
    for each in statements:
        assert not any(key.startswith("db.statement.parameters") for key in each.attributes)
    steps = [s for s in children(spans, intake) if s.name.startswith("step ")]
    assert sorted(s.attributes["notiflow.node.id"] for s in steps) == ["one", "three", "two"]
    for step in steps:
        assert (step.service, step.kind, step.name) == ("notiflow-worker", CONSUMER, "step sms")
        assert step.attributes["notiflow.trigger.id"] == str(run.pk)
        [send] = [s for s in children(spans, step) if s.name.startswith("send sms")]
        assert send.attributes["notiflow.provider"] == "file"
        # The release, at least, runs inside the step's span.
        statements = [s.attributes.get("db.statement", "") for s in children(spans, step)]
        assert any(RELEASE_FUNCTION in text for text in statements)
    # Nothing of this run went to another trace.
    stray = [s for s in otlp.received() if s.attributes.get("notiflow.trigger.id") == str(run.pk)]
    assert {s.trace_id for s in stray} == {trace_id}


def test_a_webhook_delivery_of_the_runs_event_is_a_span_of_its_trace_with_its_post(
    traced_stack, otlp, receiver, django_db_blocker
):
    with django_db_blocker.unblock():
        workflow = WorkflowFactory(
            key=f"{QUEUE}.{secrets.token_hex(5)}", definition=chain(sms_node("one"))
        )
        endpoint, path = endpoint_on(
            receiver, events=["trigger.completed"], workflows=[workflow.key]
        )
    try:
        trace_id, client_span = secrets.token_hex(16), secrets.token_hex(8)
        response = traced_post(traced_stack, workflow.key, trace_id, client_span)
        assert response.status_code == 201, response.text
        [request] = receiver.wait_for(path, 1, timeout=30)

        def delivered(spans: list[ReceivedSpan]) -> bool:
            # Both processes' exports: the worker's delivery span and the web's intake span
            # (each batches on its own schedule).
            ours = [s for s in spans if s.trace_id == trace_id]
            return any(s.name.startswith("deliver ") for s in ours) and any(
                s.parent_span_id == client_span for s in ours
            )

        otlp.wait_for(delivered, timeout=30)
    finally:
        with django_db_blocker.unblock():
            endpoint_delete(endpoint)
    spans = otlp.trace(trace_id)
    [intake] = [s for s in spans if s.parent_span_id == client_span]
    [deliver] = [s for s in children(spans, intake) if s.name.startswith("deliver ")]
    assert (deliver.service, deliver.kind, deliver.name) == (
        "notiflow-worker",
        PRODUCER,
        "deliver trigger.completed",
    )
    assert deliver.attributes["notiflow.trigger.id"] == response.json()["id"]
    assert deliver.attributes["notiflow.webhook.outcome"] == "delivered"
    # Its POST (the urllib3 instrumentation's span) and its finish are its children, and the
    # receiver got the POST's traceparent: it may continue the run's trace.
    [post] = [s for s in children(spans, deliver) if s.kind == CLIENT and s.name == "POST"]
    assert (
        post.attributes.get("http.status_code", post.attributes.get("http.response.status_code"))
        == 200
    )
    statements = [s.attributes.get("db.statement", "") for s in children(spans, deliver)]
    assert any("notiflow_delivery_finish_v1" in text for text in statements)
    assert request.headers["traceparent"] == f"00-{trace_id}-{post.span_id}-01"


def test_exported_spans_carry_no_capability_url_but_say_what_was_called(
    traced_stack, otlp, receiver, django_db_blocker
):
    """The web's request spans and the worker's outgoing calls reach the OTLP receiver without
    the preference token, a recipient's id, a query or a webhook's path (common/trace_redaction.py),
    and with their method, route template, host and status."""
    secrets_sent = {name: unique(name) for name in ("token", "recipient", "query", "hookpath")}
    trace_id = secrets.token_hex(16)
    base, key = traced_stack.base_url, traced_stack.env["API_KEY"]

    def get(path: str, **headers: str) -> int:
        headers["traceparent"] = f"00-{trace_id}-{secrets.token_hex(8)}-01"
        return requests.get(base + path, headers=headers, timeout=10).status_code

    get(f"/deliveries/preferences/{secrets_sent['token']}/?t={secrets_sent['query']}")
    get(f"/api/recipients/{secrets_sent['recipient']}/", Authorization=f"Bearer {key}")
    get(f"/no-such-page/{secrets_sent['token']}/")
    with django_db_blocker.unblock():
        workflow = WorkflowFactory(
            key=f"{QUEUE}.{secrets.token_hex(5)}", definition=chain(sms_node("one"))
        )
        path = f"/ok/{secrets_sent['hookpath']}?key={secrets_sent['query']}"
        endpoint = endpoint_create(
            url=receiver.url(path), events=["trigger.completed"], workflows=[str(workflow.key)]
        )
    try:
        run_trace, client_span = secrets.token_hex(16), secrets.token_hex(8)
        response = traced_post(traced_stack, workflow.key, run_trace, client_span)
        assert response.status_code == 201, response.text
        receiver.wait_for(path, 1, timeout=30)

        def exported(spans: list[ReceivedSpan]) -> bool:
            served = [s for s in spans if s.trace_id == trace_id and s.kind == SERVER]
            return len(served) == 3 and any(
                s.trace_id == run_trace and s.name.startswith("deliver ") for s in spans
            )

        otlp.wait_for(exported, timeout=30)
    finally:
        with django_db_blocker.unblock():
            endpoint_delete(endpoint)

    spans = otlp.trace(trace_id) + otlp.trace(run_trace)
    leaks = [
        (span.name, name, value)
        for span in spans
        for name, value in span.attributes.items()
        for secret in secrets_sent.values()
        if secret in str(value) or secret in span.name
    ]
    assert leaks == []
    served = {
        s.attributes.get("http.route", ""): s for s in otlp.trace(trace_id) if s.kind == SERVER
    }
    page = served["deliveries/preferences/<str:token>/"]
    assert page.attributes["http.method"] == "GET"
    assert "/deliveries/preferences/<str:token>/?[redacted]" in page.attributes["http.url"]
    assert served["api/recipients/<str:recipient_id>/"].attributes["http.status_code"] == 404
    assert served[""].attributes["http.url"].endswith("/[redacted]")  # no route matched
    [deliver] = [s for s in otlp.trace(run_trace) if s.name.startswith("deliver ")]
    [post] = [s for s in children(spans, deliver) if s.kind == CLIENT and s.name == "POST"]
    assert post.attributes["http.url"] == receiver.url("/[redacted]?[redacted]")
    assert post.attributes["http.status_code"] == 200


def test_a_run_resumed_by_an_event_links_its_step_to_the_posting_requests_span(
    traced_stack, otlp, django_db_blocker
):
    """The run goes on in its own trace (its intake's); the event's post is in the poster's
    trace: the step that takes the event carries a link to that post's span."""
    name = unique("order.paid")
    with django_db_blocker.unblock():
        workflow = WorkflowFactory(
            key=f"{QUEUE}.{secrets.token_hex(5)}",
            definition={
                "entry_node_id": "paid",
                "nodes": [
                    {"id": "paid", "type": "wait_event", "event": name, "timeout": "1h",
                     "match": {"order_id": "{{ payload.order_id }}"}},
                    sms_node("thanks"),
                ],
                "edges": [{"from": "paid", "to": "thanks"}],
            },
        )  # fmt: skip
    run_trace, event_trace = secrets.token_hex(16), secrets.token_hex(16)
    headers = {"Authorization": f"Bearer {traced_stack.env['API_KEY']}"}
    created = requests.post(
        f"{traced_stack.base_url}/api/triggers/",
        json={"workflow": workflow.key, "idempotency_key": unique("traced"),
              "payload": {"order_id": "o-1", "name": "Ada", "phone": "+15550100"}},
        headers={**headers, "traceparent": f"00-{run_trace}-{secrets.token_hex(8)}-01"},
        timeout=10,
    )  # fmt: skip
    assert created.status_code == 201, created.text
    run_id = created.json()["id"]
    with django_db_blocker.unblock():
        wait_for(
            lambda: TriggerInstance.objects.filter(pk=run_id, status="waiting").exists(),
            timeout=30,
            message="the run waiting",
        )
    client_span = secrets.token_hex(8)
    posted = requests.post(
        f"{traced_stack.base_url}/api/events/",
        json={"name": name, "id": unique("e"), "data": {"order_id": "o-1"}},
        headers={**headers, "traceparent": f"00-{event_trace}-{client_span}-01"},
        timeout=10,
    )
    assert (posted.status_code, posted.json()["resumed"]) == (201, 1), posted.text
    with django_db_blocker.unblock():
        assert wait_terminal(run_id).status == "completed"

    def linked(spans: list[ReceivedSpan]) -> bool:
        steps = [s for s in spans if s.trace_id == run_trace and s.name.startswith("step ")]
        post = [s for s in spans if s.trace_id == event_trace and s.parent_span_id == client_span]
        return len(steps) == 3 and len(post) == 1  # paid (parks), paid (resumed), thanks

    spans = otlp.wait_for(linked, timeout=30)
    [post] = [s for s in spans if s.trace_id == event_trace and s.parent_span_id == client_span]
    assert post.service == "notiflow-web" and post.kind == SERVER
    steps = [s for s in spans if s.trace_id == run_trace and s.name.startswith("step ")]
    resumed = [s for s in steps if s.links]
    assert [s.attributes["notiflow.node.id"] for s in resumed] == ["paid"]
    assert resumed[0].links == ((event_trace, post.span_id),)


def test_each_run_of_a_fanout_is_a_trace_of_its_own_linked_to_the_fanouts_request(
    traced_stack, otlp, django_db_blocker
):
    """A topic's fan-out: the request's span is in the client's trace; each run the workers make
    starts a trace of its own (its root a `fanout run` span linking to that request's span), and
    its steps are children of that root."""
    with django_db_blocker.unblock():
        workflow = WorkflowFactory(
            key=f"{QUEUE}.{secrets.token_hex(5)}", definition=chain(sms_node("hello"))
        )
        topic = Topic.objects.create(key=unique("traced-topic"))
        people = [unique("traced-person") for _ in range(3)]
        Recipient.objects.bulk_create([Recipient(key=key) for key in people])
        TopicSubscription.objects.bulk_create(
            [TopicSubscription(topic=topic, recipient_id=key) for key in people]
        )
    fanout_trace, client_span = secrets.token_hex(16), secrets.token_hex(8)
    answer = requests.post(
        f"{traced_stack.base_url}/api/triggers/",
        json={"workflow": workflow.key, "idempotency_key": unique("traced"), "topic": topic.key,
              "payload": {"name": "Ada", "phone": "+15550100"}},
        headers={"Authorization": f"Bearer {traced_stack.env['API_KEY']}",
                 "traceparent": f"00-{fanout_trace}-{client_span}-01"},
        timeout=10,
    )  # fmt: skip
    assert answer.status_code == 202, answer.text
    with django_db_blocker.unblock():
        wait_for(
            lambda: Fanout.objects.get(pk=answer.json()["fanout_id"]).status == "done",
            timeout=30,
            message="the fan-out done",
        )
        runs = list(TriggerInstance.objects.filter(workflow__key=workflow.key))
        assert sorted(run.recipient for run in runs) == sorted(people)
        finished = [wait_terminal(run.pk) for run in runs]
    assert {run.status for run in finished} == {"completed"}
    run_traces = {str(run.pk): run.trace_id for run in finished}
    assert None not in run_traces.values() and fanout_trace not in run_traces.values()
    assert len(set(run_traces.values())) == len(people)

    def linked(spans: list[ReceivedSpan]) -> bool:
        roots = [s for s in spans if s.name == "fanout run" and s.trace_id in run_traces.values()]
        steps = [s for s in spans if s.name == "step sms" and s.trace_id in run_traces.values()]
        post = [s for s in spans if s.trace_id == fanout_trace and s.parent_span_id == client_span]
        return len(roots) == len(steps) == len(people) and len(post) == 1

    spans = otlp.wait_for(linked, timeout=30)
    [post] = [s for s in spans if s.trace_id == fanout_trace and s.parent_span_id == client_span]
    for run_id, trace in run_traces.items():
        [root] = [s for s in spans if s.name == "fanout run" and s.trace_id == trace]
        assert (root.parent_span_id, root.kind) == ("", PRODUCER)
        assert root.attributes["notiflow.trigger.id"] == run_id
        assert root.links == ((fanout_trace, post.span_id),)
        [step] = [s for s in spans if s.name == "step sms" and s.trace_id == trace]
        assert step.parent_span_id == root.span_id

"""Retries that are safe, against httpx's MockTransport (no server): an idempotency key made
once and kept across retries; connection errors, 5xx and 503 retried with back-off; a 429 after
its Retry-After; no other 4xx ever retried; one exception per outcome."""

from __future__ import annotations

import asyncio
import json
import socket
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

import notiflow_client._core as core
from notiflow_client import (
    AsyncNotiflow,
    BadRequest,
    Conflict,
    ConnectionFailed,
    Forbidden,
    IdempotencyConflict,
    NotFound,
    Notiflow,
    NotiflowError,
    RateLimited,
    Run,
    ServerError,
    Unauthorized,
    Unavailable,
)
from notiflow_client.errors import error_for

RUN = {"id": "0b6f", "workflow": "welcome", "workflow_version": 1, "status": "enqueued"}
Handler = Callable[[httpx.Request], httpx.Response]


class Recorder:
    """A MockTransport that answers from a list, in order, and keeps every request."""

    def __init__(self, *answers: httpx.Response | Exception) -> None:
        self.answers = list(answers)
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer

    def bodies(self) -> list[Any]:
        return [json.loads(request.content) for request in self.requests]


@pytest.fixture
def sleeps(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[float]]:
    """The waits between attempts, recorded instead of slept."""
    waited: list[float] = []

    async def asleep(seconds: float) -> None:
        waited.append(seconds)

    monkeypatch.setattr("notiflow_client.client.time.sleep", waited.append)
    monkeypatch.setattr("notiflow_client.aio.asyncio.sleep", asleep)
    yield waited


def client(recorder: Handler, **options: Any) -> Notiflow:
    return Notiflow(
        "http://notiflow.test/", "nf_key", transport=httpx.MockTransport(recorder), **options
    )


def test_a_trigger_without_a_key_gets_one_and_keeps_it_across_retries(sleeps):
    recorder = Recorder(
        httpx.Response(503, json={"detail": "no live worker serves queue 'default'"}),
        httpx.ConnectError("refused"),
        httpx.Response(502),
        httpx.Response(201, json=RUN),
    )
    run = client(recorder).trigger("welcome", payload={"name": "Ada"}, recipient="user-42")
    assert isinstance(run, Run) and run.id == "0b6f" and run.status == "enqueued"
    bodies = recorder.bodies()
    assert len(bodies) == 4 and all(body == bodies[0] for body in bodies)
    assert uuid.UUID(bodies[0]["idempotency_key"])
    assert bodies[0] == {
        "workflow": "welcome",
        "payload": {"name": "Ada"},
        "recipient": "user-42",
        "idempotency_key": bodies[0]["idempotency_key"],
    }
    assert len(sleeps) == 3


def test_two_calls_get_two_keys_and_a_given_key_goes_as_given(sleeps):
    recorder = Recorder(*(httpx.Response(201, json=RUN) for _ in range(3)))
    notiflow = client(recorder)
    notiflow.trigger("welcome")
    notiflow.trigger("welcome")
    notiflow.trigger("welcome", idempotency_key="order-981", priority=9, cancellation_key="c")
    first, second, given = recorder.bodies()
    assert first["idempotency_key"] != second["idempotency_key"]
    assert given["idempotency_key"] == "order-981" and given["priority"] == 9


def test_back_off_doubles_from_half_a_second_up_to_eight_with_jitter():
    error = ServerError("boom", status=500)
    for attempt, ceiling in enumerate([0.5, 1, 2, 4, 8, 8]):
        delay = core.retry_delay(error, attempt, retries=10)
        assert delay is not None and ceiling / 2 <= delay <= ceiling
    assert core.retry_delay(error, 3, retries=3) is None  # spent


@pytest.mark.parametrize(
    ("status", "kind"),
    [
        (400, BadRequest),
        (401, Unauthorized),
        (403, Forbidden),
        (404, NotFound),
        (409, Conflict),
        (422, IdempotencyConflict),
        (418, NotiflowError),
    ],
)
def test_no_4xx_but_429_is_retried_and_each_has_its_exception(sleeps, status, kind):
    body = {"detail": "invalid input: catgory", "errors": {"catgory": ["unknown field"]}}
    recorder = Recorder(httpx.Response(status, json=body))
    with pytest.raises(kind) as raised:
        client(recorder).trigger("welcome")
    assert type(raised.value) is kind
    assert raised.value.status == status and raised.value.detail == body["detail"]
    assert raised.value.errors == body["errors"]
    assert len(recorder.requests) == 1 and sleeps == []


def test_an_idempotency_conflict_names_the_run_that_holds_the_key():
    body = {"detail": "differing: payload", "existing_trigger_id": "7f3a"}
    with pytest.raises(IdempotencyConflict) as raised:
        client(Recorder(httpx.Response(422, json=body))).trigger("welcome", idempotency_key="k")
    assert raised.value.existing_trigger_id == "7f3a" and raised.value.existing_fanout_id is None


def test_a_429_is_tried_again_after_its_retry_after(sleeps):
    recorder = Recorder(
        httpx.Response(429, json={"detail": "slow down"}, headers={"Retry-After": "2"}),
        httpx.Response(201, json=RUN),
    )
    assert client(recorder).trigger("welcome").id == "0b6f"
    assert sleeps == [2.0]


def test_a_429_asking_for_too_long_a_wait_is_raised_at_once_with_it(sleeps):
    recorder = Recorder(httpx.Response(429, json={"detail": "x"}, headers={"Retry-After": "3600"}))
    with pytest.raises(RateLimited) as raised:
        client(recorder).trigger("welcome")
    assert raised.value.retry_after == 3600 and sleeps == [] and len(recorder.requests) == 1


def test_spent_retries_raise_the_last_outcome(sleeps):
    worker_missing = {"detail": "no live worker serves queue 'billing'; start one with: …"}
    recorder = Recorder(*(httpx.Response(503, json=worker_missing) for _ in range(3)))
    with pytest.raises(Unavailable) as raised:
        client(recorder, retries=2).trigger("billing.invoice")
    assert raised.value.detail == worker_missing["detail"] and len(recorder.requests) == 3
    recorder = Recorder(httpx.Response(500, text="<html>oops</html>"))
    with pytest.raises(ServerError) as failed:
        client(recorder, retries=0).trigger("welcome")
    assert failed.value.status == 500 and failed.value.detail == "HTTP 500"


def test_a_refused_connection_is_retried_then_raised_without_a_status(sleeps):
    with socket.socket() as unused:  # a port nothing listens on
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]
    notiflow = Notiflow(f"http://127.0.0.1:{port}", "nf_key", retries=2)
    with pytest.raises(ConnectionFailed) as raised:
        notiflow.trigger("welcome")
    assert raised.value.status is None and "ConnectError" in raised.value.detail
    assert isinstance(raised.value.__cause__, httpx.ConnectError) and len(sleeps) == 2


def test_request_is_the_low_level_call_with_the_same_retries(sleeps):
    recorder = Recorder(
        httpx.Response(500),
        httpx.Response(200, json={"results": [], "next": None}),
        httpx.Response(204),
    )
    notiflow = client(recorder)
    listed = notiflow.request("get", "/api/workflows/", params={"page": 2, "absent": None})
    assert listed == {"results": [], "next": None}
    assert notiflow.request("PUT", "/api/workflows/w/", json={}, idempotency_key="k1") is None
    first, _, put = recorder.requests
    assert first.method == "GET" and str(first.url) == "http://notiflow.test/api/workflows/?page=2"
    assert put.headers["Idempotency-Key"] == "k1" and "idempotency-key" not in first.headers
    assert first.headers["Authorization"] == "Bearer nf_key"
    assert first.headers["User-Agent"].startswith("notiflow-client/")


def test_the_environment_fills_the_url_and_the_key(monkeypatch):
    monkeypatch.setenv("NOTIFLOW_URL", "http://from-env.test")
    monkeypatch.setenv("NOTIFLOW_API_KEY", "nf_env")
    recorder = Recorder(httpx.Response(200, json=RUN))
    Notiflow(transport=httpx.MockTransport(recorder)).runs.get("0b6f")
    assert str(recorder.requests[0].url) == "http://from-env.test/api/triggers/0b6f/"
    assert recorder.requests[0].headers["Authorization"] == "Bearer nf_env"
    monkeypatch.delenv("NOTIFLOW_API_KEY")
    with pytest.raises(ValueError, match="NOTIFLOW_API_KEY"):
        Notiflow()


def test_a_wait_longer_than_the_server_holds_is_several_calls(monkeypatch):
    clock = iter([100.0, 130.5, 131.0])
    monkeypatch.setattr("notiflow_client.client.time.monotonic", lambda: next(clock))
    recorder = Recorder(
        httpx.Response(200, json={**RUN, "status": "processing"}),
        httpx.Response(200, json={**RUN, "status": "completed"}),
    )
    run = client(recorder).runs.get("0b6f", wait=45)
    assert run.finished and run.status == "completed"
    assert [request.url.params["wait"] for request in recorder.requests] == ["30", "14"]
    timeout = recorder.requests[0].extensions["timeout"]
    assert timeout["read"] == 40  # the client's 10 s on top of the server's hold


def test_lists_are_read_a_page_at_a_time(sleeps):
    recorder = Recorder(
        httpx.Response(200, json={"results": [RUN], "next": "http://x/?page=2"}),
        httpx.Response(200, json={"results": [{**RUN, "id": "2"}], "next": None}),
    )
    runs = client(recorder).runs.list(workflow="welcome")
    assert next(runs).id == "0b6f" and len(recorder.requests) == 1
    assert [run.id for run in runs] == ["2"]
    assert [dict(request.url.params) for request in recorder.requests] == [
        {"workflow": "welcome"},
        {"workflow": "welcome", "page": "2"},
    ]


def test_a_topics_subscribers_are_read_by_cursor():
    recorder = Recorder(
        httpx.Response(200, json={"results": [{"recipient": "a"}], "next_cursor": "Yz0x"}),
        httpx.Response(200, json={"results": [{"recipient": "b"}], "next_cursor": None}),
    )
    subscribers = list(client(recorder).topics.subscribers("project 42/x"))
    assert [subscriber.recipient for subscriber in subscribers] == ["a", "b"]
    assert recorder.requests[1].url.params["cursor"] == "Yz0x"
    assert recorder.requests[0].url.raw_path == b"/api/topics/project%2042%2Fx/subscribers/"


def test_bulk_items_each_get_a_key_and_their_own_outcome():
    answer = {
        "results": [
            {"index": 0, "status": 201, "trigger": RUN},
            {"index": 1, "status": 422, "detail": "differing: payload", "existing_trigger_id": "9"},
        ]
    }
    recorder = Recorder(httpx.Response(200, json=answer))
    items = client(recorder).trigger_bulk(
        [{"workflow": "welcome"}, {"workflow": "welcome", "idempotency_key": "mine"}]
    )
    sent = recorder.bodies()[0]["triggers"]
    assert uuid.UUID(sent[0]["idempotency_key"]) and sent[1]["idempotency_key"] == "mine"
    assert items[0].run is not None and items[0].run.id == "0b6f" and items[0].error is None
    assert isinstance(items[1].error, IdempotencyConflict) and items[1].run is None
    assert items[1].error.existing_trigger_id == "9"


def test_the_async_client_keeps_its_key_across_retries_and_pages_lazily(sleeps):
    recorder = Recorder(
        httpx.ReadTimeout("slow"),
        httpx.Response(201, json=RUN),
        httpx.Response(200, json={"results": [{"key": "news", "subscribers": 2}], "next": None}),
        httpx.Response(400, json={"detail": "invalid input: nam"}),
    )

    async def scenario() -> None:
        async with AsyncNotiflow(
            "http://notiflow.test", "nf_key", transport=httpx.MockTransport(recorder)
        ) as notiflow:
            run = await notiflow.trigger("welcome", payload={"n": 1})
            assert run.id == "0b6f"
            assert [topic.key async for topic in notiflow.topics.list()] == ["news"]
            with pytest.raises(BadRequest):
                await notiflow.events.send("order.paid", "evt-1", {"nam": 1})

    asyncio.run(scenario())
    first, second = (request.content for request in recorder.requests[:2])
    assert first == second and len(sleeps) == 1


def test_a_definitions_problems_keep_their_fields_in_errors():
    # The validator answers a list of {"field", "message"}, a serializer a {field: [messages]}:
    # both are kept as the server said them, and named in the exception's text.
    problems = [{"field": "nodes[0].colour", "message": "unknown field"}]
    error = error_for(
        400, {"detail": "invalid workflow definition (1 problem(s))", "errors": problems}
    )
    assert isinstance(error, BadRequest) and error.errors == problems
    assert "nodes[0].colour: unknown field" in str(error)
    fields = error_for(400, {"detail": "invalid input: name", "errors": {"name": ["required"]}})
    assert fields.errors == {"name": ["required"]} and "name: required" in str(fields)

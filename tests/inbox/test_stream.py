"""The inbox stream in-process (inbox/stream.py): the first answer, a reconnect with
Last-Event-ID that misses nothing, and the adapter keeping a stream open and writing what the
view answers after each change the listener reports."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from common.asgi import WsgiAdapter
from inbox.services import cursor_of
from inbox.stream import BATCH_MAX, STREAM_ENVIRON_KEY, StreamSlot, stream_events, stream_follow
from tests.inbox.test_feed_api import message, reader
from tests.test_asgi import FakeWaiter, scope
from triggers.waiting import WAIT_ENVIRON_KEY, WaitSlot

pytestmark = [pytest.mark.django_db]


def events(body: bytes) -> list[dict[str, Any]]:
    """The SSE events of `body`: {"id", "event", "data"} each."""
    found = []
    for block in body.decode().split("\n\n"):
        fields: dict[str, Any] = {}
        for line in block.splitlines():
            if line.startswith(":"):
                continue
            name, _, value = line.partition(": ")
            fields[name] = json.loads(value) if name == "data" else value
        if fields:
            found.append(fields)
    return found


def stream(recipient: str, last_event_id: str = "") -> list[dict[str, Any]]:
    headers = {"HTTP_LAST_EVENT_ID": last_event_id} if last_event_id else {}
    answer = reader(recipient).get("/api/inbox/stream/", **headers)
    assert answer.status_code == 200, answer.content
    assert answer["Content-Type"] == "text/event-stream"
    return events(answer.content)


def test_a_first_connect_gets_the_counts_at_the_newest_position():
    message("ada", "old", age=20)
    newest = message("ada", "new", age=1)
    (counts,) = stream("ada")
    assert counts["event"] == "counts"
    assert counts["data"] == {"unseen": 2, "unread": 2, "total": 2}
    newest.refresh_from_db()
    assert counts["id"] == cursor_of(newest)  # the position of the newest message


def test_a_reconnect_with_last_event_id_gets_every_message_since():
    message("ada", "seen before", age=30)
    (first,) = stream("ada")
    later = [message("ada", "while away 1", age=-1), message("ada", "while away 2", age=-2)]
    message("bob", "not ada's", age=-3)

    again = stream("ada", first["id"])

    assert [e["event"] for e in again] == ["message", "message", "counts"]
    assert [e["data"]["id"] for e in again[:2]] == [str(m.pk) for m in later]
    assert again[-1]["data"]["total"] == 3
    # Nothing new since: at most the messages of the slack window before the position, again
    # (the client keeps each once, by its id).
    repeated = stream("ada", again[-1]["id"])
    assert {e["data"]["id"] for e in repeated if e["event"] == "message"} <= {
        str(m.pk) for m in later
    }


def test_a_full_batch_leaves_the_counts_to_the_last_and_the_next_batch_moves_on():
    """Past BATCH_MAX missed messages the view answers a full batch and says there is more; the
    next answer (what the adapter asks for at once) carries on after it, oldest first, each
    message once, and ends with the counts."""
    had = message("ada", "had", age=600)
    missed = [message("ada", f"missed {i}", age=300 - i) for i in range(BATCH_MAX + 10)]
    slot = StreamSlot(recipient="ada", cursor=cursor_of(had))

    first = events(stream_events("ada", slot))
    assert slot.more and "counts" not in [e["event"] for e in first]
    following = StreamSlot(redispatch=True)
    following.carry(slot)
    rest = events(stream_events("ada", following))

    assert not following.more and rest[-1]["event"] == "counts"
    sent = [e["data"]["id"] for e in first + rest[:-1]]
    assert sent == [str(m.pk) for m in missed]


def test_a_last_event_id_that_is_not_a_position_is_a_400():
    answer = reader("ada").get("/api/inbox/stream/", HTTP_LAST_EVENT_ID="nonsense")
    assert answer.status_code == 400
    assert "Last-Event-ID" in answer.json()["errors"]


class FakeListener:
    def __init__(self) -> None:
        self.events: dict[str, asyncio.Event] = {}
        self.closed = False

    def subscribe(self, recipient: str) -> asyncio.Event:
        self.events[recipient] = asyncio.Event()
        return self.events[recipient]

    def unsubscribe(self, recipient: str, event: asyncio.Event) -> None:
        del self.events[recipient]

    async def close(self) -> None:
        self.closed = True


def counting_view(environ: dict[str, Any], start_response: Any) -> list[bytes]:
    """A stand-in for the stream view: each dispatch answers one numbered event."""
    slot = environ[STREAM_ENVIRON_KEY]
    slot.recipient = "ada"
    slot.cursor = str(int(slot.cursor or 0) + 1)
    start_response("200 OK", [("Content-Type", "text/event-stream")])
    return [f"id: {slot.cursor}\nevent: counts\ndata: {{}}\n\n".encode()]


def test_the_adapter_keeps_a_stream_open_and_writes_each_change(settings):
    listener = FakeListener()
    app = WsgiAdapter(
        counting_view,
        threads=1,
        waiter_factory=FakeWaiter,
        wait_environ_key=WAIT_ENVIRON_KEY,
        slot_factory=lambda redispatch: WaitSlot(redispatch=redispatch),
        stream_environ_key=STREAM_ENVIRON_KEY,
        stream_slot_factory=lambda redispatch: StreamSlot(redispatch=redispatch),
        listener_factory=lambda: listener,
        stream_follow=stream_follow,
        heartbeat_seconds=0.05,
    )
    sent: list[dict[str, Any]] = []
    left = asyncio.Event()

    async def receive() -> dict[str, Any]:
        if not sent:
            return {"type": "http.request", "body": b"", "more_body": False}
        await left.wait()
        return {"type": "http.disconnect"}

    async def send(part: dict[str, Any]) -> None:
        sent.append(part)

    async def drive() -> None:
        served = asyncio.ensure_future(app(scope("/api/inbox/stream/"), receive, send))
        for _ in range(2):  # two changes, each written as the view answers it
            await asyncio.sleep(0.12)  # a heartbeat or two between them
            listener.events["ada"].set()
        await asyncio.sleep(0.05)
        left.set()
        await asyncio.wait_for(served, 5)
        await app.stop()

    asyncio.run(drive())
    assert sent[0]["type"] == "http.response.start" and sent[0]["status"] == 200
    body = b"".join(part.get("body", b"") for part in sent[1:])
    assert [e["id"] for e in events(body)] == ["1", "2", "3"]
    assert b": keep-alive" in body
    assert all(part.get("more_body") for part in sent[1:])  # never ended: the client left
    assert listener.events == {} and listener.closed


# What SSE clients send: the browser's EventSource and httpx-sse `text/event-stream`,
# @microsoft/fetch-event-source the same; fetch() without a header `*/*`; a client sending none.
SSE_ACCEPTS = ["text/event-stream", "*/*", "text/*", "text/event-stream, */*;q=0.1", None]


@pytest.mark.parametrize("accept", SSE_ACCEPTS)
def test_the_stream_is_served_to_every_accept_an_sse_client_sends(accept):
    message("ada", "new", age=1)
    headers = {} if accept is None else {"HTTP_ACCEPT": accept}
    answer = reader("ada").get("/api/inbox/stream/", **headers)
    assert answer.status_code == 200, answer.content
    assert answer["Content-Type"] == "text/event-stream"
    assert [e["event"] for e in events(answer.content)] == ["counts"]


def test_a_client_accepting_only_json_gets_a_406_in_json():
    answer = reader("ada").get("/api/inbox/stream/", HTTP_ACCEPT="application/json")
    assert answer.status_code == 406
    assert answer["Content-Type"] == "application/json"


def test_a_refused_stream_answers_its_error_in_json_to_an_sse_client():
    """An SSE client reads a non-stream answer as a failed connect; the body says why."""
    answer = reader("ada", "forged").get("/api/inbox/stream/", HTTP_ACCEPT="text/event-stream")
    assert answer.status_code == 401
    assert answer["Content-Type"] == "application/json"
    assert answer.json()["detail"]

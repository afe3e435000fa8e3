"""The inbox stream end to end (docs/design/inbox.md, "In-app inbox"): real gunicorn with its ASGI
adapter and Redis listener, real workers. A message an inapp node stores reaches an open stream
within a second of its commit, and a mark made from another tab reaches it as new counts."""

from __future__ import annotations

import json
import time
import uuid
from datetime import timedelta

import httpx
import pytest
import requests
from django.utils import timezone
from httpx_sse import connect_sse

from inbox.models import InboxMessage
from inbox.services import cursor_of
from inbox.stream import BATCH_MAX
from recipients.models import Recipient
from tests.conftest import unique
from tests.factories import WorkflowFactory, chain
from tests.inbox.support import StreamReader, stack_headers
from tests.inbox.test_inapp_node import inapp_node
from tests.support.stack import wait_for
from triggers.services import TriggerRequest, triggers_create

pytestmark = pytest.mark.e2e


def test_a_new_message_and_another_tabs_mark_reach_an_open_stream(e2e):
    workflow = WorkflowFactory(definition=chain(inapp_node()))
    recipient = Recipient.objects.create(key=unique("person")).key
    headers = stack_headers(recipient)
    reader = StreamReader(f"{e2e.base_url}/api/inbox/stream/", headers)
    try:
        wait_for(lambda: reader.find("counts"), timeout=10, message="the first counts")
        request = TriggerRequest(
            workflow.key, unique("k"), {"name": "Ada", "amount": "3"}, recipient=recipient
        )
        ((trigger, _),) = triggers_create([request])

        def arrived() -> object:
            trigger.refresh_from_db()
            assert trigger.status != "failed", trigger.last_error
            return reader.find("message")

        received = wait_for(arrived, timeout=15, message="the message on the stream")
        stored = InboxMessage.objects.get(recipient=recipient)
        assert received[2]["id"] == str(stored.pk) and received[2]["title"] == "Hello Ada"
        # Within a second of its commit (the statement's now(); the same machine's clock).
        assert received[0] - stored.created_at.timestamp() < 1.0
        counts = wait_for(lambda: reader.find("counts", lambda d: d["unread"] == 1), timeout=5)
        assert counts[2] == {"unseen": 1, "unread": 1, "total": 1}

        # Another tab reads it: this stream hears the counts fall.
        marked_at = time.time()
        answer = requests.post(
            f"{e2e.base_url}/api/inbox/mark/",
            json={"ids": [str(stored.pk)], "as": "read"},
            headers=headers,
            timeout=10,
        )
        assert answer.status_code == 200, answer.text
        fell = wait_for(
            lambda: reader.find("counts", lambda d: d["unread"] == 0), timeout=5, message="0"
        )
        assert fell[0] - marked_at < 1.0
    finally:
        reader.close()


def test_a_standard_sse_client_reads_the_stream_with_its_accept_header(e2e):
    """httpx-sse sends `Accept: text/event-stream`, as EventSource and fetch-event-source do:
    it gets the stream (not a 406), and a new message arrives on it as an event."""
    workflow = WorkflowFactory(definition=chain(inapp_node()))
    recipient = Recipient.objects.create(key=unique("person")).key
    deadline = time.monotonic() + 30
    with (
        httpx.Client(timeout=httpx.Timeout(10, read=20)) as client,
        connect_sse(
            client, "GET", f"{e2e.base_url}/api/inbox/stream/", headers=stack_headers(recipient)
        ) as source,
    ):
        assert source.response.request.headers["Accept"] == "text/event-stream"
        assert source.response.status_code == 200, source.response.read()
        received = []
        for event in source.iter_sse():
            received.append(event.event)
            if event.event == "counts" and len(received) == 1:
                request = TriggerRequest(
                    workflow.key, unique("k"), {"name": "Ada", "amount": "3"}, recipient=recipient
                )
                triggers_create([request])
            if event.event == "message":
                assert json.loads(event.data)["title"] == "Hello Ada"
                assert event.id  # a position to reconnect from
                break
            assert time.monotonic() < deadline, f"no message event; received {received}"
    assert received[0] == "counts"


def test_a_reconnect_gets_every_missed_message_in_order_in_batches(e2e):
    """120 messages stored while the client was away (more than two batches; pairs of them at
    the same time, ordered by id): the reconnect with `Last-Event-ID` gets all of them, oldest
    first, each once, then the counts, without a further change to wake it."""
    recipient = Recipient.objects.create(key=unique("person")).key
    start = timezone.now() - timedelta(seconds=30)

    def stored(title: str, at: timedelta) -> InboxMessage:
        return InboxMessage(
            recipient=recipient,
            trigger_id=uuid.uuid4(),
            node_id="bell",
            workflow_key="welcome",
            title=title,
            body=title,
            body_html=f"<p>{title}</p>",
            created_at=start + at,
        )

    had = InboxMessage.objects.bulk_create([stored("had", timedelta(seconds=-60))])[0]
    missed = InboxMessage.objects.bulk_create(
        [stored(f"missed {i}", timedelta(milliseconds=i // 2)) for i in range(120)]
    )
    assert len(missed) > 2 * BATCH_MAX
    expected = [str(m.pk) for m in sorted(missed, key=lambda m: (m.created_at, str(m.pk)))]

    received: list[str] = []
    headers = {**stack_headers(recipient), "Last-Event-ID": cursor_of(had)}
    deadline = time.monotonic() + 30
    with (
        httpx.Client(timeout=httpx.Timeout(10, read=20)) as client,
        connect_sse(client, "GET", f"{e2e.base_url}/api/inbox/stream/", headers=headers) as source,
    ):
        assert source.response.status_code == 200, source.response.read()
        for event in source.iter_sse():
            if event.event == "counts":
                counts = json.loads(event.data)
                break
            received.append(json.loads(event.data)["id"])
            assert time.monotonic() < deadline, f"{len(received)} messages so far"
    assert received == expected
    assert counts == {"unseen": 121, "unread": 121, "total": 121}

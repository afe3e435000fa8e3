"""The inbox stream end to end (docs/design.md, "In-app inbox"): real gunicorn with its ASGI
adapter and Redis listener, real workers. A message an inapp node stores reaches an open stream
within a second of its commit, and a mark made from another tab reaches it as new counts."""

from __future__ import annotations

import time

import pytest
import requests

from inbox.models import InboxMessage
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

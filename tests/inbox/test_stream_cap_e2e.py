"""The cap on one recipient's open streams, end to end (docs/security/recipients.md, "The recipient
token"): a gunicorn of its own (one worker process, NOTIFLOW_INBOX_STREAMS_PER_RECIPIENT=3) on the
stack's database and Redis. Of eight streams one person opens, exactly three stay open and the
others are a 429 naming the setting; the open ones keep working, another person is not
affected, and a stream closed frees its place."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import requests

from recipients.models import Recipient
from tests.conftest import unique
from tests.inbox.support import StreamReader, stack_headers
from tests.support.smtp import free_port
from tests.support.stack import Process, Stack, wait_for

pytestmark = pytest.mark.e2e

CAP = 3


@pytest.fixture(scope="module")
def capped_web(stack: Stack) -> Iterator[str]:
    port = free_port()
    process: Process = stack.web_process(
        "web-streams",
        port,
        "--workers",
        "1",  # the cap is a web process's: one process, so every stream meets the same count
        env={"NOTIFLOW_INBOX_STREAMS_PER_RECIPIENT": str(CAP)},
    )
    base = f"http://127.0.0.1:{port}"

    def up() -> bool:
        if process.popen.poll() is not None:
            raise AssertionError(process.log()[-3000:])
        try:
            return requests.get(f"{base}/api/health/", timeout=2).status_code in (200, 503)
        except requests.RequestException:
            return False

    wait_for(up, timeout=60, interval=0.2, message="the capped gunicorn")
    yield base
    process.stop()


def open_stream(url: str, headers: dict[str, str]) -> requests.Response:
    return requests.get(url, headers=headers, stream=True, timeout=(5, 60))


def test_a_recipient_holds_at_most_the_cap_of_open_streams_the_next_is_a_429(e2e, capped_web):
    url = f"{capped_web}/api/inbox/stream/"
    key = Recipient.objects.create(key=unique("person")).key
    headers = stack_headers(key)
    answers = [open_stream(url, headers) for _ in range(8)]
    try:
        codes = sorted(answer.status_code for answer in answers)
        assert codes == [200] * CAP + [429] * (8 - CAP)
        refused = next(answer for answer in answers if answer.status_code == 429)
        assert "NOTIFLOW_INBOX_STREAMS_PER_RECIPIENT" in refused.json()["detail"]

        other = StreamReader(url, stack_headers(Recipient.objects.create(key=unique("p")).key))
        wait_for(lambda: other.find("counts"), timeout=10, message="another person's stream")
        other.close()

        # A stream closed gives its place back once the server saw the disconnect.
        next(answer for answer in answers if answer.status_code == 200).close()

        def reopened() -> requests.Response | None:
            answer = open_stream(url, headers)
            answers.append(answer)
            return answer if answer.status_code == 200 else None

        wait_for(reopened, timeout=10, interval=0.2, message="a place after a close")
    finally:
        for answer in answers:
            answer.close()

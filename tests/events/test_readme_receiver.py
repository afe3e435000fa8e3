"""The webhooks guide's receiver (docs/guide/webhooks.md, once the README's) is real: run as written, it accepts what the dispatcher sends
and refuses a body whose signature does not match."""

from __future__ import annotations

import re
import subprocess
import sys
import time

import pytest
import requests

from events.services.dispatcher import delivery_send
from events.services.endpoints import endpoint_create, endpoint_ping
from tests.support.smtp import free_port
from tests.support.stack import ROOT, wait_for

pytestmark = pytest.mark.django_db


def readme_receiver() -> str:
    readme = (ROOT / "docs" / "guide" / "webhooks.md").read_text()
    match = re.search(r"<!-- receiver -->\n```python\n(.*?)```", readme, re.S)
    assert match, "docs/guide/webhooks.md's receiver block is missing"
    return match.group(1)


def test_the_readme_receiver_verifies_a_real_delivery(tmp_path):
    code = readme_receiver()
    assert len([line for line in code.splitlines() if line.strip()]) <= 15
    port = free_port()
    endpoint = endpoint_create(url=f"http://127.0.0.1:{port}/hook", events=["*"])
    script = tmp_path / "receiver.py"
    script.write_text(code)
    process = subprocess.Popen(
        [sys.executable, str(script)],
        env={"WEBHOOK_SECRET": endpoint.secret, "PORT": str(port), "PATH": "/usr/bin:/bin"},
        stdout=subprocess.PIPE,
        text=True,
    )
    try:

        def up() -> int | None:
            forged = {
                "webhook-id": "msg_forged",
                "webhook-timestamp": str(int(time.time())),
                "webhook-signature": "v1,AAAA",
            }
            try:
                url = f"http://127.0.0.1:{port}/"
                return requests.post(url, data=b"{}", headers=forged, timeout=1).status_code
            except requests.ConnectionError:
                return None

        assert wait_for(up, timeout=10, message="receiver up") == 401  # a made-up signature
        event = endpoint_ping(endpoint)
        assert delivery_send(event.deliveries.get().pk, worker_id="t") == "delivered"
    finally:
        process.terminate()
        out, _ = process.communicate(timeout=5)
    # The receiver prints before it answers, so the line is in the pipe once "delivered" is.
    assert f"notiflow.ping {event.event_id}" in out

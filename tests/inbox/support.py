"""Reading a live inbox stream in a test: a thread that collects its events as they arrive."""

from __future__ import annotations

import json
import threading
import time
from typing import Any

import requests
from django.test import override_settings

from inbox.tokens import recipient_token
from tests.conftest import STACK_SETTINGS


def stack_headers(recipient: str) -> dict[str, str]:
    """The Authorization of `recipient` under the stack's inbox secret."""
    with override_settings(NOTIFLOW_INBOX_SECRET=STACK_SETTINGS["NOTIFLOW_INBOX_SECRET"]):
        return {"Authorization": f"Recipient {recipient}:{recipient_token(recipient)}"}


class StreamReader:
    """GET `url` as a stream in a thread; `events` holds (time received, event, data, id)."""

    def __init__(self, url: str, headers: dict[str, str]):
        self.response = requests.get(url, headers=headers, stream=True, timeout=(5, 60))
        assert self.response.status_code == 200, self.response.text
        self.events: list[tuple[float, str, Any, str]] = []
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        fields: dict[str, str] = {}
        try:
            for line in self.response.iter_lines(chunk_size=1, decode_unicode=True):
                if line:
                    if not line.startswith(":"):
                        name, _, value = line.partition(": ")
                        fields[name] = value
                    continue
                if "event" in fields:
                    data = json.loads(fields.get("data", "null"))
                    self.events.append((time.time(), fields["event"], data, fields.get("id", "")))
                fields = {}
        except (requests.RequestException, AttributeError, ValueError):
            return  # closed by the test

    def find(self, event: str, predicate: Any = lambda data: True) -> Any:
        return next((item for item in self.events if item[1] == event and predicate(item[2])), None)

    def close(self) -> None:
        self.response.close()

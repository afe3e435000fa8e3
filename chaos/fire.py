"""Firing the triggers over HTTP, from a few concurrent clients, retrying with the same key."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import requests

WORKFLOW_KEY = "chaos"
DIGEST_WORKFLOW_KEY = "chaos-digest"


def trigger_body(index: int) -> dict[str, Any]:
    return {
        "workflow": WORKFLOW_KEY,
        "idempotency_key": f"chaos-{index:05d}",
        "payload": {
            "email": f"ok-{index}@chaos.test",
            "phone": f"+1555{index:07d}",
            "name": f"User {index}",
        },
    }


def digest_body(index: int, *, groups: int) -> dict[str, Any]:
    """A run of the digest workflow: its group is its digest key (one digest email per group and
    window, to the group's address)."""
    group = f"g{index % groups:03d}"
    return {
        "workflow": DIGEST_WORKFLOW_KEY,
        "idempotency_key": f"chaos-digest-{index:05d}",
        "payload": {"group": group, "email": f"digest-{group}@chaos.test", "item": index},
    }


class Firing:
    """`fired` maps idempotency key -> trigger id for every trigger the API acknowledged (201, or
    200 when an earlier attempt had created it); `retries` counts 5xx, 429 and connection errors.
    A retry re-sends the same key: the inbox makes it harmless (docs/design/api.md: idempotency key)."""

    def __init__(
        self,
        *,
        base_url: str,
        headers: dict[str, str],
        threads: int,
        body: Callable[[int], dict[str, Any]] = trigger_body,
    ):
        self.url = base_url + "/api/triggers/"
        self.body = body
        self.headers = headers
        self.threads = threads
        self.lock = threading.Lock()
        self.fired: dict[str, str] = {}
        self.retries = 0
        self.remaining = 0  # triggers not yet acknowledged while firing; 0 once it is over

    def fire(self, count: int) -> None:
        """Fire triggers 0..count-1; give up on one after 60 attempts or the shared deadline."""
        local = threading.local()
        deadline = time.monotonic() + 60 + 0.1 * count

        def one(index: int) -> None:
            if not hasattr(local, "session"):
                local.session = requests.Session()
                local.session.headers.update(self.headers)
            self._fire_one(local.session, self.body(index), deadline)

        self.remaining = count
        try:
            with ThreadPoolExecutor(max_workers=self.threads) as executor:
                for future in [executor.submit(one, i) for i in range(count)]:
                    future.result()
        finally:
            self.remaining = 0

    def _fire_one(self, session: requests.Session, body: dict[str, Any], deadline: float) -> None:
        key = body["idempotency_key"]
        for attempt in range(60):
            try:
                response = session.post(self.url, json=body, timeout=10)
                if response.status_code in (200, 201):
                    with self.lock:
                        self.fired[key] = response.json()["id"]
                        self.remaining -= 1
                    return
                if response.status_code < 500 and response.status_code != 429:
                    raise RuntimeError(
                        f"intake refused {key}: {response.status_code} {response.text}"
                    )
            except requests.RequestException:
                pass
            with self.lock:
                self.retries += 1
            if time.monotonic() > deadline:
                return
            time.sleep(min(0.1 * 2**attempt, 2.0))

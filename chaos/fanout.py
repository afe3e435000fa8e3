"""A fan-out under the chaos run's faults (issue 33): a topic of N subscribers triggered once,
while the kills, flushes and restarts land; at the end every subscriber has exactly one run of
the fan-out's workflow, none lost, and the fan-out is `done` with `created` equal to N.

The subscribers are made by one `manage.py shell` (as the web role), the topic and the
subscriptions over the API (its per-id answers checked), and the fan-out is one POST
/api/triggers/ with `topic`, re-sent with its key on a 5xx or a connection error (the replay
answers the same fan-out). Its workflow sends nothing (a short delay), so the deliveries' count
stays the main workflow's.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import requests

FANOUT_WORKFLOW_KEY = "chaos-fanout"
TOPIC_KEY = "chaos-topic"
FANOUT_KEY = "chaos-fanout-1"
SUBSCRIBE_BATCH = 1000

# Run as the web role: the recipients (the profiles' API belongs to another change; the model is
# what the fan-out reads).
RECIPIENTS_CREATE = """
from recipients.models import Recipient
Recipient.objects.bulk_create(
    [Recipient(key=f"chaos-user-{{i:05d}}") for i in range({count})], batch_size=1000
)
"""


def recipient_keys(count: int) -> list[str]:
    return [f"chaos-user-{i:05d}" for i in range(count)]


def fanout_workflow_definition() -> dict[str, Any]:
    return {
        "key": FANOUT_WORKFLOW_KEY,
        "name": "Chaos: one run per subscriber of a topic",
        "entry_node_id": "pause",
        "nodes": [{"id": "pause", "type": "delay", "delay_ms": 300}],
        "edges": [],
    }


def topic_subscribe(api: requests.Session, base_url: str, count: int) -> None:
    """The topic and its `count` subscribers, over the API."""
    url = f"{base_url}/api/topics/{TOPIC_KEY}/"
    made = api.put(url, json={"name": "Chaos topic"}, timeout=30)
    if made.status_code not in (200, 201):
        raise RuntimeError(f"creating the topic: {made.status_code} {made.text}")
    keys = recipient_keys(count)
    for start in range(0, count, SUBSCRIBE_BATCH):
        batch = keys[start : start + SUBSCRIBE_BATCH]
        answer = api.post(url + "subscribers/", json={"recipients": batch}, timeout=60)
        refused = [r for r in answer.json().get("results", []) if r["status"] != 201]
        if answer.status_code != 200 or refused or len(answer.json()["results"]) != len(batch):
            raise RuntimeError(f"subscribing: {answer.status_code} {answer.text[:500]}")


def fanout_fire(api: requests.Session, base_url: str, deadline: float) -> str:
    """POST the fan-out, again with the same key on a 5xx or a connection error; its id."""
    body = {"workflow": FANOUT_WORKFLOW_KEY, "idempotency_key": FANOUT_KEY, "topic": TOPIC_KEY}
    attempt = 0
    while True:
        try:
            answer = api.post(base_url + "/api/triggers/", json=body, timeout=10)
            if answer.status_code in (200, 202):
                return str(answer.json()["fanout_id"])
            if answer.status_code < 500 and answer.status_code != 429:
                raise RuntimeError(f"fan-out refused: {answer.status_code} {answer.text}")
        except requests.RequestException:
            pass
        attempt += 1
        if time.monotonic() > deadline:
            raise RuntimeError("the fan-out could not be fired before the deadline")
        time.sleep(min(0.1 * 2**attempt, 2.0))


RUNNING_SQL = "SELECT count(*) FROM recipient_fanout WHERE status = 'running'"
_FANOUT_SQL = "SELECT status, created FROM recipient_fanout WHERE id = %s"
_RUNS_SQL = """
SELECT t.recipient, count(*) FROM trigger_instance t JOIN workflows_workflow w ON w.id = t.workflow_id
WHERE w.key = %s AND t.deleted_at IS NULL GROUP BY t.recipient
"""


@dataclass
class Fanouts:
    """The fan-out's count (off when none was asked for)."""

    subscribers: int = 0
    status: str = ""
    created: int = 0  # the fan-out's own count
    runs: int = 0  # its workflow's runs in the database
    missing: int = 0  # subscribers without a run
    twice: int = 0  # subscribers with more than one
    strangers: int = 0  # runs for someone who is not a subscriber

    def misses(self) -> list[str]:
        if not self.subscribers:
            return []
        checks = [
            (self.status == "done", f"the fan-out is {self.status or 'missing'}, not done"),
            (self.missing == 0, f"{self.missing} subscriber(s) without a run"),
            (self.twice == 0, f"{self.twice} subscriber(s) with more than one run"),
            (self.strangers == 0, f"{self.strangers} fan-out run(s) for no subscriber"),
            (
                self.created == self.runs == self.subscribers,
                f"fan-out counted {self.created}, runs {self.runs}, subscribers {self.subscribers}",
            ),
        ]
        return [message for ok, message in checks if not ok]

    def rows(self) -> list[tuple[str, object]]:
        if not self.subscribers:
            return []
        return [
            ("fan-out subscribers", self.subscribers),
            ("  fan-out status / its count", f"{self.status} / {self.created}"),
            ("  runs made", self.runs),
            ("  subscribers without a run / with two", f"{self.missing} / {self.twice}"),
        ]


def tally_fanout(fanouts: Fanouts, *, query: Any, fanout_id: str, subscribers: int) -> None:
    fanouts.subscribers = subscribers
    found = query(_FANOUT_SQL, [fanout_id])
    if found:
        fanouts.status, fanouts.created = found[0]
    per_recipient = dict(query(_RUNS_SQL, [FANOUT_WORKFLOW_KEY]))
    wanted = set(recipient_keys(subscribers))
    fanouts.runs = sum(per_recipient.values())
    fanouts.missing = len(wanted - set(per_recipient))
    fanouts.twice = sum(1 for n in per_recipient.values() if n > 1)
    fanouts.strangers = sum(n for key, n in per_recipient.items() if key not in wanted)

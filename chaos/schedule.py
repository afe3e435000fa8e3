"""A schedule under the chaos run's faults (issue 50, "Done when"): a topic of N subscribers (10,000
in `make chaos`) and a schedule of it whose one occurrence (`FREQ=DAILY;COUNT=1`, in UTC) is
due a few seconds after the faults begin; at the end every subscriber has exactly one run of
the schedule's workflow, keyed `schedule:<id>:<recipient>:<occurrence in UTC>`, none lost, and
the occurrence is recorded `fired` with N runs (docs/reliability/chaos.md, "A schedule under
the faults").

The subscribers are made by one `manage.py shell` (as the web role), the topic and the
subscriptions over the API, and the schedule is one PUT /api/schedules/<id>/; after a 5xx or a
connection error the harness asks GET whether it was stored before it sends it again (a PUT of
another instant would move a stored occurrence). Its workflow sends nothing (a short delay), so
the deliveries' count stays the main workflow's. The harness's key has no rate limit, so the
occurrence is charged nothing (schedules/admission.py).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import requests

SCHEDULE_WORKFLOW_KEY = "chaos-schedule"
SCHEDULE_TOPIC_KEY = "chaos-schedule-topic"
SCHEDULE_ID = "chaos-schedule-1"
# The occurrence is due this long after the PUT: the faults have begun, and its chunks
# (NOTIFLOW_FANOUT_CHUNK_SIZE, 50 in the run) land among them.
LEAD_SECONDS = 5
SUBSCRIBE_BATCH = 1000
PEOPLE_CREATE = """
from recipients.models import Recipient
Recipient.objects.bulk_create(
    [Recipient(key=f"chaos-sched-{{i:05d}}") for i in range({count})], batch_size=1000
)
"""


def subscriber_keys(count: int) -> list[str]:
    return [f"chaos-sched-{i:05d}" for i in range(count)]


def schedule_workflow_definition() -> dict[str, Any]:
    return {
        "key": SCHEDULE_WORKFLOW_KEY,
        "name": "Chaos: one run per subscriber at a schedule's occurrence",
        "entry_node_id": "pause",
        "nodes": [{"id": "pause", "type": "delay", "delay_ms": 300}],
        "edges": [],
    }


def schedule_topic_subscribe(api: requests.Session, base_url: str, count: int) -> None:
    """The schedule's topic and its `count` subscribers, over the API."""
    url = f"{base_url}/api/topics/{SCHEDULE_TOPIC_KEY}/"
    made = api.put(url, json={"name": "Chaos schedule's topic"}, timeout=30)
    if made.status_code not in (200, 201):
        raise RuntimeError(f"creating the schedule's topic: {made.status_code} {made.text}")
    keys = subscriber_keys(count)
    for start in range(0, count, SUBSCRIBE_BATCH):
        batch = keys[start : start + SUBSCRIBE_BATCH]
        answer = api.post(url + "subscribers/", json={"recipients": batch}, timeout=60)
        results = answer.json().get("results", []) if answer.status_code == 200 else []
        if len(results) != len(batch) or any(r["status"] != 201 for r in results):
            raise RuntimeError(f"subscribing: {answer.status_code} {answer.text[:500]}")


def schedule_store(api: requests.Session, base_url: str, deadline: float) -> datetime:
    """PUT the schedule, its one occurrence LEAD_SECONDS from now; after a 5xx or a connection
    error, GET tells whether it was stored (then its stored instant stands), else PUT again
    with a new instant. The occurrence's instant, in UTC."""
    url = f"{base_url}/api/schedules/{SCHEDULE_ID}/"
    attempt = 0
    while True:
        at = (datetime.now(UTC) + timedelta(seconds=LEAD_SECONDS)).replace(microsecond=0)
        body = {
            "workflow": SCHEDULE_WORKFLOW_KEY,
            "topic": SCHEDULE_TOPIC_KEY,
            "repeat": "FREQ=DAILY;COUNT=1",
            "timezone": "UTC",
            "starts_at": at.strftime("%Y-%m-%dT%H:%M:%S"),
        }
        try:
            answer = api.put(url, json=body, timeout=10)
            if answer.status_code in (200, 201):
                return at
            if answer.status_code < 500:
                raise RuntimeError(f"schedule refused: {answer.status_code} {answer.text}")
        except requests.RequestException:
            pass
        stored = _stored_start(api, url)
        if stored is not None:
            return stored
        attempt += 1
        if time.monotonic() > deadline:
            raise RuntimeError("the schedule could not be stored before the deadline")
        time.sleep(min(0.1 * 2**attempt, 2.0))


def _stored_start(api: requests.Session, url: str) -> datetime | None:
    try:
        answer = api.get(url, timeout=10)
    except requests.RequestException:
        return None
    if answer.status_code != 200:
        return None
    return datetime.fromisoformat(answer.json()["starts_at"]).replace(tzinfo=UTC)


# 1 while the schedule has its occurrence still to fire (or to finish firing), else 0.
PENDING_SQL = "SELECT count(*) FROM schedule WHERE id = %s AND active AND next_local <> ''"
_RECORD_SQL = """
SELECT status, runs, occurs_at FROM schedule_occurrence WHERE schedule_id = %s ORDER BY occurs_at
"""
_CREATED_SQL = "SELECT runs_created, last_error FROM schedule WHERE id = %s"
_RUNS_SQL = """
SELECT t.recipient, t.idempotency_key FROM trigger_instance t
JOIN workflows_workflow w ON w.id = t.workflow_id
WHERE w.key = %s AND t.deleted_at IS NULL
"""


@dataclass
class Schedules:
    """The schedule's count (off when none was asked for)."""

    subscribers: int = 0
    occurrence: str = ""  # its record: "<status> <runs>", one per zone (one: UTC)
    runs_created: int = 0  # the schedule's own count
    runs: int = 0  # its workflow's runs in the database
    missing: int = 0  # subscribers without a run
    twice: int = 0  # subscribers with more than one
    strangers: int = 0  # runs for someone who is not a subscriber
    wrong_keys: int = 0  # runs whose key is not schedule:<id>:<recipient>:<occurrence>
    last_error: str = ""

    def misses(self) -> list[str]:
        if not self.subscribers:
            return []
        fired = f"fired {self.subscribers}"
        checks = [
            (self.occurrence == fired, f"the occurrence's record is {self.occurrence or 'none'}"),
            (self.missing == 0, f"{self.missing} subscriber(s) without a scheduled run"),
            (self.twice == 0, f"{self.twice} subscriber(s) with more than one scheduled run"),
            (self.strangers == 0, f"{self.strangers} scheduled run(s) for no subscriber"),
            (self.wrong_keys == 0, f"{self.wrong_keys} scheduled run(s) with another key"),
            (
                self.runs_created == self.runs == self.subscribers,
                f"schedule counted {self.runs_created}, runs {self.runs}, subscribers "
                f"{self.subscribers}",
            ),
        ]
        return [message for ok, message in checks if not ok]

    def rows(self) -> list[tuple[str, object]]:
        if not self.subscribers:
            return []
        return [
            ("schedule subscribers", self.subscribers),
            ("  occurrence record / schedule's count", f"{self.occurrence} / {self.runs_created}"),
            ("  runs made (keys not the occurrence's)", f"{self.runs} ({self.wrong_keys})"),
            ("  subscribers without a run / with two", f"{self.missing} / {self.twice}"),
        ]


def tally_schedule(schedules: Schedules, *, query: Any, at: datetime, subscribers: int) -> None:
    schedules.subscribers = subscribers
    records = query(_RECORD_SQL, [SCHEDULE_ID])
    schedules.occurrence = ", ".join(f"{status} {runs}" for status, runs, _ in records)
    found = query(_CREATED_SQL, [SCHEDULE_ID])
    if found:
        schedules.runs_created, schedules.last_error = found[0]
    stamp = at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    per_recipient: dict[str, int] = {}
    for recipient, key in query(_RUNS_SQL, [SCHEDULE_WORKFLOW_KEY]):
        per_recipient[recipient] = per_recipient.get(recipient, 0) + 1
        if key != f"schedule:{SCHEDULE_ID}:{recipient}:{stamp}":
            schedules.wrong_keys += 1
    wanted = set(subscriber_keys(subscribers))
    schedules.runs = sum(per_recipient.values())
    schedules.missing = len(wanted - set(per_recipient))
    schedules.twice = sum(1 for n in per_recipient.values() if n > 1)
    schedules.strangers = sum(n for key, n in per_recipient.items() if key not in wanted)

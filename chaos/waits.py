"""Waiting runs under the chaos run's faults (issue 34, docs/design/waits.md "Waiting for events"):
`runs` runs park at a `wait_event` node for `chaos.go` with their own `n`, and once all of them
are `waiting` one event per run is posted over POST /api/events/ from a few concurrent clients,
10 % of them twice (the repeat racing the first), while the kills and flushes land; `timeouts`
more runs wait for an event nobody posts and time out. At the end every run is completed,
resumed once (one status change out of `waiting` at most, one step of its branch), the right
way (`vars.hold` received with its own event, or timed out; the branch that says so), and no
wait is left open.

An event's post is re-sent with its id on a 5xx or a connection error: the events API answers
the same id with 200 and resumes nothing twice. The branches send nothing (a short delay), so
the deliveries' counts stay the main workflow's.
"""

from __future__ import annotations

import random
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import requests

WAIT_WORKFLOW_KEY = "chaos-wait"
TIMEOUT_WORKFLOW_KEY = "chaos-wait-timeout"
EVENT_NAME = "chaos.go"
# The timed-out runs' timeout: short, so that their timeouts land while the faults do; the
# others' is far beyond the run.
SHORT_TIMEOUT = "5s"
LONG_TIMEOUT = "1h"
REPEATED_EVERY = 10  # one event in ten is posted twice


def wait_workflow_definition(key: str, timeout: str) -> dict[str, Any]:
    return {
        "key": key,
        "name": f"Chaos: wait for {EVENT_NAME} ({timeout})",
        "entry_node_id": "hold",
        "nodes": [
            {
                "id": "hold",
                "type": "wait_event",
                "event": EVENT_NAME,
                "match": {"n": "{{ payload.n }}"},
                "timeout": timeout,
            },
            {"id": "got", "type": "delay", "delay_ms": 10},
            {"id": "late", "type": "delay", "delay_ms": 10},
        ],
        "edges": [
            {"from": "hold", "to": "got", "when": "vars.hold.received"},
            {"from": "hold", "to": "late", "when": "vars.hold.timed_out"},
        ],
    }


def wait_body(index: int) -> dict[str, Any]:
    return {
        "workflow": WAIT_WORKFLOW_KEY,
        "idempotency_key": f"chaos-wait-{index:05d}",
        "payload": {"n": f"w{index}"},
    }


def timeout_body(index: int) -> dict[str, Any]:
    return {
        "workflow": TIMEOUT_WORKFLOW_KEY,
        "idempotency_key": f"chaos-wait-timeout-{index:05d}",
        "payload": {"n": f"t{index}"},
    }


WAITING_SQL = """
SELECT count(*) FROM trigger_instance t JOIN workflows_workflow w ON w.id = t.workflow_id
WHERE w.key = %s AND t.status = 'waiting'
"""


@dataclass
class EventPosting:
    """Posts one `chaos.go` per waiting run, 10 % twice, from `threads` clients."""

    base_url: str
    headers: dict[str, str]
    threads: int
    answers: Counter[int] = field(default_factory=Counter)
    resumed: int = 0
    retries: int = 0
    unacknowledged: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def post(self, count: int, *, seed: int | None = None) -> None:
        posts = list(range(count)) + list(range(0, count, REPEATED_EVERY))
        random.Random(seed).shuffle(posts)  # a repeat may race its first post
        local = threading.local()
        deadline = time.monotonic() + 60 + 0.1 * len(posts)

        def one(index: int) -> None:
            if not hasattr(local, "session"):
                local.session = requests.Session()
                local.session.headers.update(self.headers)
            self._post_one(local.session, index, deadline)

        with ThreadPoolExecutor(max_workers=self.threads) as executor:
            for future in [executor.submit(one, i) for i in posts]:
                future.result()

    def _post_one(self, session: requests.Session, index: int, deadline: float) -> None:
        body = {"name": EVENT_NAME, "id": f"chaos-go-{index:05d}", "data": {"n": f"w{index}"}}
        for attempt in range(60):
            try:
                response = session.post(self.base_url + "/api/events/", json=body, timeout=10)
                if response.status_code in (200, 201):
                    with self.lock:
                        self.answers[response.status_code] += 1
                        self.resumed += int(response.json()["resumed"])
                    return
                if response.status_code < 500 and response.status_code != 429:
                    raise RuntimeError(
                        f"event {body['id']} refused: {response.status_code} {response.text}"
                    )
            except requests.RequestException:
                pass
            with self.lock:
                self.retries += 1
            if time.monotonic() > deadline:
                break
            time.sleep(min(0.1 * 2**attempt, 2.0))
        with self.lock:
            self.unacknowledged += 1


# Per run of the two wait workflows: its workflow, status, `vars.hold`, its `n`, its status
# changes out of `waiting`, and the successful steps of its branches.
_RUNS_SQL = """
SELECT w.key, t.status, t.vars -> 'hold', t.payload ->> 'n',
       (SELECT count(*) FROM trigger_event e WHERE e.trigger_id = t.id AND e.from_status = 'waiting'
          AND e.to_status <> 'waiting'),
       (SELECT coalesce(string_agg(s.node_id, ',' ORDER BY s.node_id), '') FROM step_log s
         WHERE s.trigger_id = t.id AND s.success AND s.node_id IN ('got', 'late'))
FROM trigger_instance t JOIN workflows_workflow w ON w.id = t.workflow_id
WHERE w.key IN (%s, %s) AND t.deleted_at IS NULL
"""
_OPEN_WAITS_SQL = "SELECT count(*) FROM event_wait WHERE resolved_at IS NULL"


@dataclass
class Waits:
    """The waiting runs' count (off when none were asked for)."""

    runs: int = 0  # asked to wait for an event
    timeouts: int = 0  # asked to time out
    fired: int = 0
    events_posted: int = 0  # distinct events
    events_repeated: int = 0
    answers: dict[int, int] = field(default_factory=dict)  # 201 / 200
    answers_resumed: int = 0  # the sum of the answers' `resumed`
    post_retries: int = 0
    unacknowledged: int = 0
    received: int = 0  # completed by their event, the right one, through `got`
    timed_out: int = 0  # completed by their timeout, through `late`
    wrong: int = 0  # completed the wrong way (the other branch, another run's event, both)
    not_completed: int = 0
    resumed_twice: int = 0  # two status changes out of `waiting`, or two steps of a branch
    missing: int = 0  # fired but not in the database
    open_waits: int = 0

    def misses(self) -> list[str]:
        if not (self.runs or self.timeouts):
            return []
        checks = [
            (self.fired == self.runs + self.timeouts, f"{self.fired} waiting runs fired"),
            (self.unacknowledged == 0, f"{self.unacknowledged} event(s) never acknowledged"),
            (self.missing == 0, f"{self.missing} waiting run(s) missing from the database"),
            (self.not_completed == 0, f"{self.not_completed} waiting run(s) not completed"),
            (self.wrong == 0, f"{self.wrong} waiting run(s) resumed the wrong way"),
            (self.resumed_twice == 0, f"{self.resumed_twice} waiting run(s) resumed twice"),
            (self.received == self.runs, f"{self.received} of {self.runs} got their event"),
            (self.timed_out == self.timeouts, f"{self.timed_out} of {self.timeouts} timed out"),
            (self.open_waits == 0, f"{self.open_waits} wait(s) left open"),
        ]
        return [message for ok, message in checks if not ok]

    def rows(self) -> list[tuple[str, object]]:
        if not (self.runs or self.timeouts):
            return []
        answers = " / ".join(f"{self.answers.get(code, 0)}" for code in (201, 200))
        return [
            ("waiting runs (event / timeout)", f"{self.runs} / {self.timeouts}"),
            (
                "  events posted (distinct + repeated)",
                f"{self.events_posted} + {self.events_repeated}",
            ),
            ("  answers 201 / 200, their `resumed` summed", f"{answers}, {self.answers_resumed}"),
            (
                "  event posts retried / never acknowledged",
                f"{self.post_retries} / {self.unacknowledged}",
            ),
            ("  resumed by their event / timed out", f"{self.received} / {self.timed_out}"),
            (
                "  wrong way / resumed twice / not completed",
                f"{self.wrong} / {self.resumed_twice} / {self.not_completed}",
            ),
            ("  waits left open", self.open_waits),
        ]


def tally_waits(
    waits: Waits,
    *,
    query: Any,
    runs: int,
    timeouts: int,
    fired: int,
    posting: EventPosting | None,
) -> None:
    waits.runs, waits.timeouts, waits.fired = runs, timeouts, fired
    if posting is not None:
        waits.events_posted = runs
        waits.events_repeated = len(range(0, runs, REPEATED_EVERY))
        waits.answers = dict(posting.answers)
        waits.answers_resumed = posting.resumed
        waits.post_retries = posting.retries
        waits.unacknowledged = posting.unacknowledged
    rows = query(_RUNS_SQL, [WAIT_WORKFLOW_KEY, TIMEOUT_WORKFLOW_KEY])
    waits.missing = runs + timeouts - len(rows)
    for key, status, hold, n, out_of_waiting, branches in rows:
        if status != "completed":
            waits.not_completed += 1
            continue
        steps = [node for node in branches.split(",") if node]
        if out_of_waiting > 1 or len(steps) > 1:
            waits.resumed_twice += 1
            continue
        hold = hold or {}
        event = hold.get("event") or {}
        if key == WAIT_WORKFLOW_KEY:
            right = (
                hold.get("received") is True
                and hold.get("timed_out") is False
                and (event.get("data") or {}).get("n") == n
                and steps == ["got"]
                and out_of_waiting == 1
            )
            waits.received += right
        else:
            right = (
                hold.get("timed_out") is True
                and hold.get("received") is False
                and steps == ["late"]
            )
            waits.timed_out += right
        waits.wrong += not right
    waits.open_waits = int(query(_OPEN_WAITS_SQL)[0][0])

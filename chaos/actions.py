"""Bulk actions under the chaos run's faults (issue 49, "Done when": the actions survive the faults
without a run acted on twice; docs/bulk-actions.md): `runs` runs of a workflow that sends nothing
are fired first and left to complete, and `runs` more that wait for an event nobody posts; once
the first are all completed and the others all waiting, a bulk `replay` of the first and a bulk
`cancel` of the others are asked over POST /api/triggers/actions/, each with an idempotency key
and re-sent with it on a 5xx or a connection error (the same key answers the same action), while
the kills, flushes and restarts land. The workers connect as the worker role, so each chunk acts
through the state machine's functions (triggers migration 0028), NOTIFLOW_ACTION_CHUNK_SIZE runs
at a time.

At the end each action is `done` with `matched` = `done` = runs (none skipped, none in error);
every completed run was replayed exactly once (one run keyed `replay:<action>:<run>`, completed,
with one `created` event) and nothing else was made; every waiting run was cancelled exactly once
(one status change to `cancelled`) and its wait closed.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import requests

REPLAY_WORKFLOW_KEY = "chaos-replay"
CANCEL_WORKFLOW_KEY = "chaos-cancel"
NEVER_POSTED = "chaos.never"
ACTION_KEYS = {"replay": "chaos-bulk-replay", "cancel": "chaos-bulk-cancel"}


def action_workflow_definitions() -> list[dict[str, Any]]:
    """The replayed runs' workflow (a short delay: it sends nothing, so the deliveries' counts
    stay the main workflow's) and the cancelled runs' (a wait for an event nobody posts)."""
    return [
        {
            "key": REPLAY_WORKFLOW_KEY,
            "name": "Chaos: runs replayed in bulk",
            "entry_node_id": "pause",
            "nodes": [{"id": "pause", "type": "delay", "delay_ms": 300}],
            "edges": [],
        },
        {
            "key": CANCEL_WORKFLOW_KEY,
            "name": "Chaos: runs cancelled in bulk",
            "entry_node_id": "hold",
            "nodes": [
                {
                    "id": "hold",
                    "type": "wait_event",
                    "event": NEVER_POSTED,
                    "match": {"n": "{{ payload.n }}"},
                    "timeout": "1h",
                },
                {"id": "after", "type": "delay", "delay_ms": 10},
            ],
            "edges": [{"from": "hold", "to": "after"}],
        },
    ]


def replay_body(index: int) -> dict[str, Any]:
    return {
        "workflow": REPLAY_WORKFLOW_KEY,
        "idempotency_key": f"chaos-replay-{index:05d}",
        "payload": {"n": f"r{index}"},
    }


def cancel_body(index: int) -> dict[str, Any]:
    return {
        "workflow": CANCEL_WORKFLOW_KEY,
        "idempotency_key": f"chaos-cancel-{index:05d}",
        "payload": {"n": f"c{index}"},
    }


# The replayed runs completed, and the cancelled runs waiting: what the actions wait for.
READY_SQL = """
SELECT count(*) FILTER (WHERE w.key = %s AND t.status = 'completed'),
       count(*) FILTER (WHERE w.key = %s AND t.status = 'waiting')
FROM trigger_instance t JOIN workflows_workflow w ON w.id = t.workflow_id
WHERE w.key IN (%s, %s)
"""
ACTIONS_RUNNING_SQL = "SELECT count(*) FROM trigger_action WHERE status = 'running'"


def action_ask(
    api: requests.Session, base_url: str, action: str, run_filter: dict[str, Any], deadline: float
) -> tuple[str, int]:
    """POST the action, again with the same key on a 5xx or a connection error; its id, and how
    many times it was sent again."""
    body = {"action": action, "filter": run_filter, "idempotency_key": ACTION_KEYS[action]}
    attempt = 0
    while True:
        try:
            answer = api.post(base_url + "/api/triggers/actions/", json=body, timeout=10)
            if answer.status_code == 202:
                return str(answer.json()["action_id"]), attempt
            if answer.status_code < 500 and answer.status_code != 429:
                raise RuntimeError(f"bulk {action} refused: {answer.status_code} {answer.text}")
        except requests.RequestException:
            pass
        attempt += 1
        if time.monotonic() > deadline:
            raise RuntimeError(f"the bulk {action} could not be asked before the deadline")
        time.sleep(min(0.1 * 2**attempt, 2.0))


@dataclass
class ActionCount:
    """One action as its row tells it."""

    id: str = ""
    status: str = ""
    matched: int = 0
    done: int = 0
    skipped: int = 0
    errors: int = 0
    last_error: str = ""

    def misses(self, name: str, runs: int) -> list[str]:
        if self.status != "done":
            return [f"the bulk {name} is {self.status or 'missing'}, not done ({self.last_error})"]
        counts = (self.matched, self.done, self.skipped, self.errors)
        if counts != (runs, runs, 0, 0):
            return [f"the bulk {name} matched / done / skipped / errors {counts}, not {runs} each"]
        return []

    def row(self) -> str:
        return (
            f"{self.status or '-'}, {self.matched} / {self.done} / {self.skipped} / {self.errors}"
        )


@dataclass
class Actions:
    """The bulk actions' count (off when none were asked for)."""

    runs: int = 0  # runs replayed, and as many cancelled
    fired: int = 0
    replay: ActionCount = field(default_factory=ActionCount)
    cancel: ActionCount = field(default_factory=ActionCount)
    replayed_once: int = 0
    not_replayed: int = 0
    replayed_twice: int = 0
    replays_not_completed: int = 0
    strangers: int = 0  # runs of the replayed workflow that are neither a run fired nor its replay
    created_twice: int = 0  # runs of it with more than one `created` event
    cancelled_once: int = 0
    not_cancelled: int = 0
    cancelled_twice: int = 0
    waits_open: int = 0
    asks_retried: int = 0
    faults_while_acting: int = 0  # faults injected between the first ask and the last `done`

    def misses(self) -> list[str]:
        if not self.runs:
            return []
        checks = [
            (self.fired == 2 * self.runs, f"{self.fired} of {2 * self.runs} action runs fired"),
            (self.not_replayed == 0, f"{self.not_replayed} run(s) never replayed"),
            (self.replayed_twice == 0, f"{self.replayed_twice} run(s) replayed twice"),
            (self.replays_not_completed == 0, f"{self.replays_not_completed} replay(s) unfinished"),
            (self.strangers == 0, f"{self.strangers} run(s) of the replayed workflow unaccounted"),
            (self.created_twice == 0, f"{self.created_twice} run(s) created twice"),
            (self.not_cancelled == 0, f"{self.not_cancelled} run(s) not cancelled"),
            (self.cancelled_twice == 0, f"{self.cancelled_twice} run(s) cancelled twice"),
            (self.waits_open == 0, f"{self.waits_open} cancelled run(s) with their wait open"),
        ]
        return (
            self.replay.misses("replay", self.runs)
            + self.cancel.misses("cancel", self.runs)
            + [message for ok, message in checks if not ok]
        )

    def rows(self) -> list[tuple[str, object]]:
        if not self.runs:
            return []
        return [
            ("bulk actions: runs replayed / cancelled", f"{self.runs} / {self.runs}"),
            ("  replay: status, matched / done / skipped / errors", self.replay.row()),
            ("  cancel: status, matched / done / skipped / errors", self.cancel.row()),
            (
                "  replayed once / never / twice",
                f"{self.replayed_once} / {self.not_replayed} / {self.replayed_twice}",
            ),
            (
                "  replays unfinished / runs unaccounted",
                f"{self.replays_not_completed} / {self.strangers}",
            ),
            (
                "  cancelled once / never / twice",
                f"{self.cancelled_once} / {self.not_cancelled} / {self.cancelled_twice}",
            ),
            (
                "  asks retried / faults while acting",
                f"{self.asks_retried} / {self.faults_while_acting}",
            ),
        ]


_ACTION_SQL = """
SELECT status, matched, done, skipped, errors, last_error FROM trigger_action WHERE id = %s
"""
# Every run of a workflow: its id, key and status, its `created` events and its cancels.
_RUNS_SQL = """
SELECT t.id::text, t.idempotency_key, t.status,
       (SELECT count(*) FROM trigger_event e WHERE e.trigger_id = t.id AND e.from_status = ''),
       (SELECT count(*) FROM trigger_event e WHERE e.trigger_id = t.id
          AND e.to_status = 'cancelled')
FROM trigger_instance t JOIN workflows_workflow w ON w.id = t.workflow_id
WHERE w.key = %s AND t.deleted_at IS NULL
"""
_OPEN_WAITS_SQL = """
SELECT count(*) FROM event_wait v JOIN trigger_instance t ON t.id = v.trigger_id
JOIN workflows_workflow w ON w.id = t.workflow_id WHERE w.key = %s AND v.resolved_at IS NULL
"""


def tally_actions(
    actions: Actions,
    *,
    query: Any,
    runs: int,
    fired: dict[str, dict[str, str]],
    action_ids: dict[str, str],
) -> None:
    """`fired` maps each action to the runs fired for it (key -> id); `action_ids` each action to
    its id, as the API answered."""
    actions.runs = runs
    actions.fired = sum(len(each) for each in fired.values())
    for name in ("replay", "cancel"):
        count = getattr(actions, name)
        count.id = action_ids.get(name, "")
        found = query(_ACTION_SQL, [count.id]) if count.id else []
        if found:
            (count.status, count.matched, count.done, count.skipped, count.errors,
             count.last_error) = found[0]  # fmt: skip
    originals = set(fired.get("replay", {}).values())
    replays: dict[str, list[tuple[str, int]]] = {}
    for run_id, key, status, created, _cancels in query(_RUNS_SQL, [REPLAY_WORKFLOW_KEY]):
        actions.created_twice += created > 1
        prefix = f"replay:{actions.replay.id}:"
        if key.startswith(prefix) and key.removeprefix(prefix) in originals:
            replays.setdefault(key.removeprefix(prefix), []).append((status, created))
        elif run_id not in originals:
            actions.strangers += 1
    for original in originals:
        made = replays.get(original, [])
        actions.replayed_once += len(made) == 1
        actions.not_replayed += not made
        actions.replayed_twice += len(made) > 1
        actions.replays_not_completed += sum(1 for status, _ in made if status != "completed")
    waiting = set(fired.get("cancel", {}).values())
    for run_id, _key, status, _created, cancels in query(_RUNS_SQL, [CANCEL_WORKFLOW_KEY]):
        if run_id not in waiting:
            continue
        actions.cancelled_once += status == "cancelled" and cancels == 1
        actions.not_cancelled += status != "cancelled"
        actions.cancelled_twice += cancels > 1
    actions.not_cancelled += len(
        waiting - {row[0] for row in query(_RUNS_SQL, [CANCEL_WORKFLOW_KEY])}
    )
    actions.waits_open = int(query(_OPEN_WAITS_SQL, [CANCEL_WORKFLOW_KEY])[0][0])

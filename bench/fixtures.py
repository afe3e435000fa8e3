"""The bench's workflows and triggers, made through the services as a client would make them.

Imported only after django.setup() (see bench.__main__).
"""

from __future__ import annotations

import itertools
import time
import uuid
from dataclasses import dataclass
from typing import Any

from django.db import connection

from triggers.services import trigger_create
from workflows.models import Workflow
from workflows.services import workflow_create

PAYLOAD = {"email": "ann@example.com", "name": "Ann", "phone": "+15550100", "plan": "pro"}


def email_node(node_id: str) -> dict[str, Any]:
    return {
        "id": node_id,
        "type": "email",
        "to": "{{ payload.email }}",
        "subject": "Hello {{ payload.name }} from {{ workflow.name }}",
        "body": "Hi {{ payload.name }}, your plan is {{ payload.plan }}.",
    }


def sms_node(node_id: str) -> dict[str, Any]:
    return {
        "id": node_id,
        "type": "sms",
        "to": "{{ payload.phone }}",
        "body": "Hi {{ payload.name }}",
    }


def delay_node(node_id: str, delay_ms: int) -> dict[str, Any]:
    return {"id": node_id, "type": "delay", "delay_ms": delay_ms}


def chain(*nodes: dict[str, Any]) -> dict[str, Any]:
    return {
        "entry_node_id": nodes[0]["id"],
        "nodes": list(nodes),
        "edges": [{"from": a["id"], "to": b["id"]} for a, b in itertools.pairwise(nodes)],
    }


# The three-node workflow of the engine figures: email -> sms -> email.
ENGINE_DEFINITION = chain(email_node("welcome"), sms_node("text"), email_node("follow_up"))
ENGINE_STEPS_PER_TRIGGER = 3


def use_database(name: str) -> None:
    """Point this process's Django connection at another of the bench's databases."""
    if connection.settings_dict["NAME"] != name:
        connection.close()
        connection.settings_dict["NAME"] = name


def workflow_new(
    tag: str, definition: dict[str, Any], *, queue: str = "", key_prefix: str = ""
) -> Workflow:
    """A fresh workflow per measurement, so that each one counts only its own triggers; on
    `queue` if given, else its key's (`default`, or the first segment of `key_prefix`)."""
    return workflow_create(
        key=f"{key_prefix}bench-{tag}-{uuid.uuid4().hex[:6]}",
        name=f"Bench {tag}",
        definition=definition,
        queue=queue,
    )


def triggers_fire(
    workflow: Workflow, count: int, *, prefix: str, per_second: float | None = None
) -> float:
    """Create `count` triggers through the intake service; returns how long it took (s).

    With `per_second`, creation is paced (for delay accuracy, where deadlines should be spread).
    """
    started = time.monotonic()
    for i in range(count):
        if per_second:
            wait = started + i / per_second - time.monotonic()
            if wait > 0:
                time.sleep(wait)
        trigger_create(workflow_key=workflow.key, idempotency_key=f"{prefix}-{i}", payload=PAYLOAD)
    return time.monotonic() - started


@dataclass(frozen=True)
class Completion:
    completed: int
    failed: int
    other: int
    first_created: float  # epoch seconds
    last_completed: float

    @property
    def seconds(self) -> float:
        return self.last_completed - self.first_created


def completion_of(workflow_id: int) -> Completion:
    with connection.cursor() as cursor:
        cursor.execute(
            """
            SELECT count(*) FILTER (WHERE status = 'completed'),
                   count(*) FILTER (WHERE status = 'failed'),
                   count(*) FILTER (WHERE status NOT IN ('completed', 'failed')),
                   extract(epoch FROM min(created_at)), extract(epoch FROM max(completed_at))
            FROM trigger_instance WHERE workflow_id = %s
            """,
            [workflow_id],
        )
        row = cursor.fetchone()
    assert row is not None
    return Completion(
        completed=row[0],
        failed=row[1],
        other=row[2],
        first_created=float(row[3] or 0),
        last_completed=float(row[4] or 0),
    )


def steps_logged(workflow_id: int) -> int:
    """Successful step logs of the workflow (a scan: call it after the measurement)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM step_log WHERE workflow_id = %s AND success", [workflow_id]
        )
        row = cursor.fetchone()
    return int(row[0]) if row else 0


def wait_finished(workflow_id: int, count: int, *, timeout: float) -> Completion:
    """Poll until `count` triggers of the workflow are terminal; raise after `timeout` s."""
    deadline = time.monotonic() + timeout
    while True:
        done = completion_of(workflow_id)
        if done.completed + done.failed >= count:
            if done.failed:
                raise RuntimeError(f"{done.failed} trigger(s) failed; see the worker log")
            return done
        if time.monotonic() > deadline:
            raise RuntimeError(f"only {done.completed}/{count} completed after {timeout:.0f}s")
        time.sleep(0.5)

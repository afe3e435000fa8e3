"""An audience's runs in one statement (docs/design/recipients.md, "Topics and fan-out"): the insert
primitive that a fan-out's chunk and a schedule's occurrence (schedules/) share, so that no
package but triggers writes `trigger_instance`.

Many runs of one workflow, where only the idempotency key, its request hash and the recipient
differ from run to run, go through the state machine's function (FANOUT_INTAKE_SQL, triggers
migration 0027) as intake would create them one by one: the same rows, `created` events, request
hashes and nudges. A key held already is the work done before (created again: never); held by a
trigger of other parameters, it is left out and named.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from json.encoder import encode_basestring_ascii  # type: ignore[attr-defined]
from typing import Any

from django.conf import settings

from common.db import fetchall_prepared
from registry.selectors import worker_command
from registry.sql import live_within_seconds
from triggers.dispatch import Nudge, triggers_enqueue_on_commit
from triggers.sql import FANOUT_HELD_SQL, FANOUT_INTAKE_SQL, FANOUT_WORKFLOW_COLUMNS


@dataclass(frozen=True)
class AudienceRuns:
    """What the runs of one call share: workflow, payload (its JSON, as intake checked it),
    priority (None: the workflow's), cancellation key, tenant ("" for none; checked by the
    caller) and the actor their events name."""

    workflow_key: str
    payload_json: str
    priority: int | None = None
    cancellation_key: str = ""
    tenant: str = ""
    actor: str = ""


class RunsPaused(Exception):
    """No live worker serves the workflow's queue: nothing was created; try again later."""


class WorkflowGone(Exception):
    """The workflow was deleted or deactivated: no run can be created for it."""


def audience_runs_create(
    runs: AudienceRuns,
    keys: Sequence[str],
    recipients: Sequence[str],
    *,
    traced: Sequence[tuple[str, ...]] | None = None,
) -> tuple[int, list[str]]:
    """Create one run per (key, recipient) of `runs` (traced: each run's id and trace context,
    made beforehand, else none), nudged after commit: (how many were created, why the others
    were left out). Raises RunsPaused when a new run needs a live worker and none serves the
    queue, WorkflowGone when the workflow does not exist or is inactive. A key whose holder is
    deleted meanwhile is free again: the statement runs once more for those."""
    hashes = run_hashes(runs, recipients)
    params: dict[str, Any] = {
        "workflow": runs.workflow_key,
        "payload": runs.payload_json,
        "priority": runs.priority,
        "cancellation_key": runs.cancellation_key,
        "tenant": runs.tenant,
        "actor": runs.actor,
        "require_worker": settings.NOTIFLOW_TRIGGER_REQUIRES_WORKER,
        "live_within": live_within_seconds(),
    }
    extra = traced or [()] * len(keys)
    pending = list(range(len(keys)))
    created: list[Nudge] = []
    refused: list[str] = []
    for _ in range(2):
        if not pending:
            break
        rows = fetchall_prepared(
            FANOUT_INTAKE_SQL,
            {
                **params,
                "runs": json.dumps(
                    [(keys[i], hashes[i], recipients[i], *extra[i]) for i in pending]
                ),
            },
        )
        if not rows:
            raise WorkflowGone(f"workflow {runs.workflow_key!r} does not exist")
        workflow_id, active, has_version, queue, served = rows[0][:FANOUT_WORKFLOW_COLUMNS]
        if not active or not has_version:
            raise WorkflowGone(f"workflow {runs.workflow_key!r} is not active")
        inserted = set()
        for run_id, key, priority in (row[FANOUT_WORKFLOW_COLUMNS:] for row in rows):
            if run_id is not None:
                created.append(Nudge(run_id, queue=queue, priority=priority))
                inserted.add(key)
        pending = [i for i in pending if keys[i] not in inserted]
        if not pending:
            break
        held = dict(
            fetchall_prepared(
                FANOUT_HELD_SQL, {"workflow_id": workflow_id, "keys": [keys[i] for i in pending]}
            )
        )
        for i in pending:
            digest = held.get(keys[i])
            if digest and digest != hashes[i]:
                refused.append(
                    f"idempotency key {keys[i]!r} was used with other parameters by another "
                    "trigger; nothing was changed"
                )
        pending = [i for i in pending if keys[i] not in held]
        if pending and not served and settings.NOTIFLOW_TRIGGER_REQUIRES_WORKER:
            raise RunsPaused(
                f"no live worker serves queue {queue!r}; start one with: " + worker_command(queue)
            )
    refused.extend(
        f"the trigger with idempotency key {keys[i]!r} was deleted while the chunk ran, twice"
        for i in pending
    )
    triggers_enqueue_on_commit(created)
    return len(created), refused


def run_hashes(runs: AudienceRuns, recipients: Sequence[str]) -> list[str]:
    """The request_hash (triggers/services.py) of each recipient's run, as intake computes it
    for a request with that recipient and `runs`' payload, priority, cancellation key and
    tenant (hashed only when given, as intake does): the JSON head but the recipient is shared,
    once."""
    head = json.dumps([runs.priority, runs.cancellation_key], separators=(",", ":"))
    after = json.dumps([{"tenant": runs.tenant}] if runs.tenant else [], separators=(",", ":"))
    head, tail = (
        head[:-1] + ",",
        ("," + after[1:-1] if runs.tenant else "") + "]" + runs.payload_json,
    )
    return [
        hashlib.sha256((head + encode_basestring_ascii(recipient) + tail).encode()).hexdigest()
        for recipient in recipients
    ]

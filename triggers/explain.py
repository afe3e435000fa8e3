"""A run's story (docs/design/rules.md, rule 20;
docs/design/deliveries.md, "Explaining a run"): one entry per node it reached,
oldest first, each with what was decided there, in words and as the rule and evidence that
decided. It reads what the steps recorded when they ran (the decision in each step log's
output, workflows.decisions) and the run's status events; it decides nothing again, so a
preference changed since does not rewrite why a message was skipped.

Step logs are reached through the reverse relation (`steps`), so `triggers` does not import
`workers`, as the admin's timeline does (triggers.selectors.trigger_timeline). A provider's
rate limit puts a step back without a step log (it is no attempt): its status event's reason,
written by rate_limited_reason and read back by _rate_limited, is its record.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from triggers.models import TriggerEvent, TriggerInstance, TriggerStatus
from workflows.decisions import (
    CANCELLED,
    DECISION_KEY,
    DEFERRED,
    FAILED,
    PASSED,
    PENDING,
    RATE_LIMITED,
    RETRYING,
    SENT,
    SKIPPED,
    WAITING,
    moment,
)
from workflows.nodes import NODE_TYPES

_RATE_LIMITED = re.compile(
    r"^(?P<node>.+) rate limited: provider (?P<provider>\S+) has no token for "
    r"(?P<seconds>[0-9.]+)s$"
)


def rate_limited_reason(node_id: str, *, provider: str, seconds: float) -> str:
    """The status event's reason of a step put back for its provider's rate limit (the engine's
    outcome_put_back), which the story reads back (_rate_limited)."""
    return f"{node_id} rate limited: provider {provider} has no token for {seconds:.3f}s"


def _rate_limited(reason: str) -> dict[str, Any] | None:
    """The node, provider and wait of a put-back's event reason; None for any other reason."""
    found = _RATE_LIMITED.match(reason)
    if found is None:
        return None
    return {
        "node": found["node"],
        "provider": found["provider"],
        "wait_seconds": float(found["seconds"]),
    }


@dataclass
class _Node:
    """A node's records in the story, oldest first: each a decision with its time."""

    node: str
    type: str
    records: list[dict[str, Any]] = field(default_factory=list)

    def entry(self) -> dict[str, Any]:
        last = self.records[-1]
        return {
            "node": self.node,
            "type": self.type,
            **last,
            "earlier": [
                {"decision": r["decision"], "reason": r["reason"], "at": r["at"]}
                for r in self.records[:-1]
            ],
        }


def run_story(trigger: TriggerInstance) -> list[dict[str, Any]]:
    """The story of `trigger`: per node reached, oldest first, {"node", "type", "decision",
    "reason", "rule", "evidence", "at"} of its latest record, and `earlier` (the node's previous
    records, such as a failed attempt before the one that sent). Two statements: its step logs
    and its status events."""
    steps = (
        trigger.steps.of_run_created(trigger.created_at)
        .order_by("finished_at", "id")
        .values_list(  # type: ignore[attr-defined]
            "node_id", "node_type", "finished_at", "output", "error"
        )
    )
    events = list(
        TriggerEvent.objects.of_run(trigger)
        .order_by("id")
        .values_list("to_status", "reason", "actor", "node_id", "created_at")
    )
    records: list[tuple[datetime, str, str, dict[str, Any]]] = [
        (finished_at, node_id, node_type, _recorded(node_type, output, error, finished_at))
        for node_id, node_type, finished_at, output, error in steps
    ]
    for _, reason, _, node_id, at in events:
        if (put_back := _rate_limited(reason)) is not None:
            records.append((at, node_id or put_back["node"], "", _put_back(put_back, at)))
    records.sort(key=lambda record: record[0])
    nodes: dict[str, _Node] = {}
    for _, node_id, node_type, record in records:
        node = nodes.setdefault(node_id, _Node(node_id, node_type or _type_of(trigger, node_id)))
        node.records.append(record)
    _now(trigger, nodes, events)
    return [node.entry() for node in nodes.values()]


def _recorded(
    node_type: str, output: dict[str, Any] | None, error: str, at: datetime
) -> dict[str, Any]:
    """A step log's decision, as its step recorded it. A log written before steps recorded
    their decisions says what it can of itself (sent, skipped, failed, passed), naming no rule."""
    recorded = (output or {}).get(DECISION_KEY)
    if isinstance(recorded, dict):
        return {**recorded, "at": at}
    kind = NODE_TYPES.get(node_type)
    if error:
        decision, reason = FAILED, error
    elif isinstance((output or {}).get("skipped"), str):
        decision, reason = SKIPPED, str((output or {})["skipped"])
    elif kind is not None and (kind.sends or kind.delivers_on):
        decision, reason = SENT, f"sent to {(output or {}).get('to') or '?'}"
    else:
        decision, reason = PASSED, "done"
    return {"decision": decision, "reason": reason, "rule": "", "evidence": {}, "at": at}


def _put_back(put_back: dict[str, Any], at: datetime) -> dict[str, Any]:
    reason = (
        f"Waiting for provider {put_back['provider']}'s rate limit: no token for "
        f"{put_back['wait_seconds']:.1f}s (not an attempt)"
    )
    evidence = {"provider": put_back["provider"], "wait_seconds": put_back["wait_seconds"]}
    return {
        "decision": RATE_LIMITED,
        "reason": reason,
        "rule": "provider_rate_limit",
        "evidence": evidence,
        "at": at,
    }


def _type_of(trigger: TriggerInstance, node_id: str) -> str:
    for node in trigger.workflow_version.definition.get("nodes", []):
        if node.get("id") == node_id:
            return str(node.get("type", ""))
    return ""


# What a node's latest record says of a run still at it: it is held there, waiting to go on.
_HELD = (DEFERRED, WAITING, RETRYING, RATE_LIMITED)


def _now(trigger: TriggerInstance, nodes: dict[str, _Node], events: list[tuple[Any, ...]]) -> None:
    """Where the run stands now, as its row and last events say: cancelled at a node, failed
    there without a step log of it (an outcome the database refused), or pending at its
    current node (unless that node's own record says why it waits there)."""
    node_id = trigger.current_node_id or ""
    last = next((e for e in reversed(events) if e[0] == trigger.status), None)
    if trigger.status == TriggerStatus.CANCELLED and last is not None:
        _, reason, actor, at_node, at = last
        node_id = at_node or node_id
        record = {
            "decision": CANCELLED,
            "reason": f"Cancelled by {actor or 'someone'}: {reason}",
            "rule": "cancel",
            "evidence": {"actor": actor, "reason": reason},
            "at": at,
        }
    elif trigger.status == TriggerStatus.FAILED and last is not None:
        if node_id in nodes and nodes[node_id].records[-1]["decision"] == FAILED:
            return
        record = {
            "decision": FAILED,
            "reason": f"Failed: {trigger.last_error or last[1]}",
            "rule": "error",
            "evidence": {"error": trigger.last_error},
            "at": last[4],
        }
    elif trigger.status in (TriggerStatus.ENQUEUED, TriggerStatus.PROCESSING) and node_id:
        held = node_id in nodes and nodes[node_id].records[-1]["decision"] in _HELD
        if held and trigger.status == TriggerStatus.ENQUEUED:
            return
        if trigger.status == TriggerStatus.PROCESSING:
            reason, at = "Running now", trigger.updated_at
        else:
            reason, at = f"Not run yet: due at {moment(trigger.available_at)}", trigger.available_at
        record = {
            "decision": PENDING,
            "reason": reason,
            "rule": "",
            "evidence": {"status": trigger.status, "attempts": trigger.attempts},
            "at": at,
        }
    else:
        return
    node = nodes.setdefault(node_id, _Node(node_id, _type_of(trigger, node_id)))
    node.records.append(record)

"""The nodes that send nothing: delay, window, throttle and digest (docs/design.md, "Timing and
flow-control nodes"). Their arithmetic is the run semantics' (workflows.semantics, shared with
the preview); throttle and digest keep their state in PostgreSQL (workers.services.flow)."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from triggers.models import TriggerInstance
from workers.nodes.base import FOLLOW_AGAIN, FOLLOW_CONDITIONAL, FOLLOW_END, NodeRun
from workers.services.flow import digest_reach, throttle_take
from workflows.semantics import flow_key, flow_window, output_key, timing_wait


def flow_run(
    node: dict[str, Any], *, trigger: TriggerInstance, context: dict[str, Any], now: datetime
) -> NodeRun:
    """Run a node that sends nothing, as of `now`. RenderError (permanent) for a value that
    renders unusable."""
    kind = node["type"]
    if kind == "throttle":
        return _throttle(node, trigger, context)
    if kind == "digest":
        return _digest(node, trigger, context, now)
    wait = timing_wait(node, context, now)
    return NodeRun(output=wait.output, resume_at=wait.resume_at)


def _throttle(node: dict[str, Any], trigger: TriggerInstance, context: dict[str, Any]) -> NodeRun:
    taken = throttle_take(
        workflow_id=trigger.workflow_id,
        node_id=node["id"],
        key=flow_key(node, context),
        trigger_id=trigger.pk,
        limit=int(node["limit"]),
        window=flow_window(node),
    )
    output = {"throttled": not taken.passed, "count": taken.count}
    run = NodeRun(output=output, vars_patch={output_key(node): output})
    if not taken.passed:
        run.follow = FOLLOW_CONDITIONAL
    return run


def _digest(
    node: dict[str, Any], trigger: TriggerInstance, context: dict[str, Any], now: datetime
) -> NodeRun:
    reach = digest_reach(
        workflow_id=trigger.workflow_id,
        node_id=node["id"],
        key=flow_key(node, context),
        trigger_id=trigger.pk,
        payload_json=json.dumps(trigger.payload),
        window=flow_window(node),
    )
    digest = str(reach.digest_id)
    if not reach.opener:  # its payload travels in the opener's digest: this run ends here
        output = {"joined": digest, "opened_by": str(reach.opener_id)}
        return NodeRun(output=output, follow=FOLLOW_END)
    if reach.summary is None:  # the window is not over: wait for it, at this node
        output = {"opened": digest, "closes_at": reach.closes_at.isoformat()}
        return NodeRun(output=output, resume_at=max(now, reach.closes_at), follow=FOLLOW_AGAIN)
    return NodeRun(output=reach.summary, vars_patch={output_key(node): reach.summary})

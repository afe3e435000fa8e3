"""The digest node type: the runs with the same `key` within `window` are gathered; the first
(the opener) waits for the window to close and goes on with all their payloads, the others end."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from workflows.decisions import DEFERRED, DIGESTED, StepDecision, moment
from workflows.nodes.base import (
    FOLLOW_AGAIN,
    FOLLOW_END,
    NodePreview,
    NodeRun,
    RenderedField,
    StepPort,
    output_key,
)
from workflows.nodes.keyed import KeyedType, preview_recipient


class DigestNode(KeyedType):
    name = "digest"
    required = ("window",)
    optional = ("key",)
    gathers_payloads = True
    colours = ("#f1ebfa", "#6a3fb5")
    form_groups = (("key", "window"),)

    def run(self, node: dict[str, Any], *, step: StepPort) -> NodeRun:
        key = self.key(node, step.context, recipient=step.recipient)
        reach = step.digest_join(node_id=node["id"], key=key, window=self.window(node))
        digest = str(reach.digest_id)
        evidence = {"node": node["id"], "key": key, "window": node["window"], "digest": digest}
        if not reach.opener:  # its payload travels in the opener's digest: this run ends here
            output = {"joined": digest, "opened_by": str(reach.opener_id)}
            reason = (
                f"Gathered into the digest of {node['id']!r} for key {key!r} that run "
                f"{reach.opener_id} opened; this run ends here"
            )
            decision = StepDecision(DIGESTED, reason, "digest", {**evidence, **output})
            return NodeRun(output=output, follow=FOLLOW_END, decision=decision)
        if reach.summary is None:  # the window is not over: wait for it, at this node
            output = {"opened": digest, "closes_at": reach.closes_at.isoformat()}
            resume_at = max(step.now, reach.closes_at)
            reason = (
                f"Opened the digest of {node['id']!r} for key {key!r}: gathering runs until "
                f"{moment(reach.closes_at)}"
            )
            decision = StepDecision(DEFERRED, reason, "digest", {**evidence, **output})
            return NodeRun(
                output=output, resume_at=resume_at, follow=FOLLOW_AGAIN, decision=decision
            )
        count = reach.summary.get("count")
        reason = f"Digest of {node['id']!r} for key {key!r} closed with {count} event(s): went on"
        decision = StepDecision(DIGESTED, reason, "digest", {**evidence, "count": count})
        return NodeRun(
            output=reach.summary,
            vars_patch={output_key(node): reach.summary},
            decision=decision,
        )

    def preview(self, node: dict[str, Any], context: dict[str, Any], now: datetime) -> NodePreview:
        key = [RenderedField("key", self.key(node, context, recipient=preview_recipient(context)))]
        note = f"gathers the runs with this key for {node.get('window')}, then goes on once"
        return NodePreview(node["id"], self.name, key, note=note)

    def placeholder(
        self, node: dict[str, Any], *, preview: NodePreview, payload: dict[str, Any], now: datetime
    ) -> dict[str, Any]:
        """A digest of this payload alone."""
        moment = now.isoformat()
        return {
            "id": "preview",
            "count": 1,
            "events": [payload],
            "first_at": moment,
            "last_at": moment,
        }

    def summary(self, node: dict[str, Any]) -> str:
        return f"digest · {node.get('window')} by {node.get('key')}"

"""The throttle node type: at most `limit` runs with the same `key` go on per `window`; the
rest follow only the conditional edges."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any, ClassVar

from workflows.decisions import PASSED, THROTTLED, StepDecision
from workflows.nodes.base import (
    FOLLOW_CONDITIONAL,
    NodePreview,
    NodeRun,
    Problem,
    RenderedField,
    StepPort,
    output_key,
)
from workflows.nodes.keyed import KeyedType, preview_recipient

if TYPE_CHECKING:
    from django import forms

THROTTLE_MAX = 1_000_000  # the most runs a throttle's `limit` may let through per window


class ThrottleNode(KeyedType):
    name = "throttle"
    required = ("limit", "window")
    optional = ("key",)
    colours = ("#fbeaea", "#b03a2e")
    otherwise_label = "passed"  # a throttled run follows only the conditional edges
    field_schemas: ClassVar[dict[str, dict[str, Any]]] = {
        **KeyedType.field_schemas,
        "limit": {"type": "integer", "minimum": 1, "maximum": THROTTLE_MAX},
    }
    form_groups = (("key", "window"), ("limit",))

    def problems(self, node: dict[str, Any]) -> list[Problem]:
        limit = node.get("limit")
        found: list[Problem] = []
        if limit is not None and (
            isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= THROTTLE_MAX
        ):
            found.append(("limit", f"must be a whole number from 1 to {THROTTLE_MAX}"))
        return found + super().problems(node)

    def run(self, node: dict[str, Any], *, step: StepPort) -> NodeRun:
        key, limit = self.key(node, step.context, recipient=step.recipient), int(node["limit"])
        taken = step.throttle_pass(
            node_id=node["id"], key=key, limit=limit, window=self.window(node)
        )
        output = {"throttled": not taken.passed, "count": taken.count}
        evidence = {"node": node["id"], "key": key, "limit": limit, "window": node["window"]}
        evidence["count"] = taken.count
        per = f"{limit} per {node['window']} for key {key!r}"
        if taken.passed:
            reason = f"Throttle {node['id']!r} let the run through ({taken.count} of {per})"
            decision = StepDecision(PASSED, reason, "throttle", evidence)
        else:
            reason = (
                f"Throttled by {node['id']!r}: {taken.count} run(s) already went through, its "
                f"limit of {per}; only its conditional edges were followed"
            )
            decision = StepDecision(THROTTLED, reason, "throttle", evidence)
        run = NodeRun(output=output, vars_patch={output_key(node): output}, decision=decision)
        if not taken.passed:
            run.follow = FOLLOW_CONDITIONAL
        return run

    def preview(self, node: dict[str, Any], context: dict[str, Any], now: datetime) -> NodePreview:
        key = [RenderedField("key", self.key(node, context, recipient=preview_recipient(context)))]
        note = f"lets {node.get('limit')} run(s) with this key through per {node.get('window')}"
        return NodePreview(node["id"], self.name, key, note=note)

    def placeholder(
        self, node: dict[str, Any], *, preview: NodePreview, payload: dict[str, Any], now: datetime
    ) -> dict[str, Any]:
        return {"throttled": False, "count": 1}  # a run the throttle let through

    def summary(self, node: dict[str, Any]) -> str:
        return f"throttle · {node.get('limit')} per {node.get('window')}"

    def form_fields(self) -> dict[str, forms.Field]:
        from django import forms

        limit = forms.IntegerField(
            required=False,
            min_value=1,
            help_text="runs that pass per window; the rest are throttled",
        )
        return {**super().form_fields(), "limit": limit}

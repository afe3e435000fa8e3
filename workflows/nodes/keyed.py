"""What throttle and digest share: a rendered `key` the runs are counted or gathered under, and
a `window` (docs/design/workflows.md, "Timing and flow-control nodes"). Their state is in PostgreSQL,
behind the StepPort the engine passes to `run`."""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING, Any, ClassVar

from workflows.definition import FLOW_KEY_MAX, MAX_DELAY, duration_parse
from workflows.nodes.base import NodeType, Problem, RenderError
from workflows.templating import render_budget

if TYPE_CHECKING:
    from django import forms


def preview_recipient(context: dict[str, Any]) -> str:
    """The sample recipient's id a preview renders with ('' for none)."""
    recipient = context.get("recipient")
    return str(recipient.get("id") or "") if isinstance(recipient, dict) else ""


class KeyedType(NodeType):
    templates = ("key",)
    outputs = True
    field_schemas: ClassVar[dict[str, dict[str, Any]]] = {
        "key": {
            "type": "string",
            "description": "a template: the runs sharing it count together; unset, the run's "
            "recipient's id",
        },
        "window": {"type": "string", "example": "1h"},
    }

    def problems(self, node: dict[str, Any]) -> list[Problem]:
        """The `window`: a duration from 1 second to 365 days."""
        window = node.get("window")
        if window in (None, ""):
            return []  # reported as required
        try:
            length = duration_parse(str(window))
        except ValueError as exc:
            return [("window", str(exc))]
        if not timedelta(seconds=1) <= length <= MAX_DELAY:
            return [("window", "must be from 1 second to 365 days")]
        return []

    def key(self, node: dict[str, Any], context: dict[str, Any], *, recipient: str) -> str:
        """The rendered `key`; unset, the run's `recipient` key (so a topic's fan-out into a
        digest gathers per person without saying so). RenderError when it renders empty or too
        long, or is unset on a run without a recipient."""
        if node.get("key") in (None, ""):
            if not recipient:
                raise RenderError(
                    f"node {node['id']!r}: 'key' is not set and the run has no recipient to "
                    "count it by",
                    field="key",
                )
            return recipient
        with render_budget():
            key = self.field_render(node, "key", context).strip()
        if not key:
            raise RenderError(f"node {node['id']!r}: 'key' rendered empty", field="key")
        if len(key) > FLOW_KEY_MAX:
            raise RenderError(
                f"node {node['id']!r}: 'key' rendered {len(key)} characters, more than "
                f"{FLOW_KEY_MAX}",
                field="key",
            )
        return key

    def window(self, node: dict[str, Any]) -> timedelta:
        """A (validated) node's window."""
        return duration_parse(str(node["window"]))

    def form_fields(self) -> dict[str, forms.Field]:
        from django import forms

        return {
            "key": forms.CharField(
                required=False,
                widget=forms.TextInput(attrs={"placeholder": "{{ payload.user_id }}"}),
                help_text="the runs counted (or gathered) together share this rendered key; "
                "empty: the run's recipient",
            ),
            "window": forms.CharField(
                required=False,
                widget=forms.TextInput(attrs={"size": 8, "placeholder": "1h"}),
                help_text="e.g. 90s, 10m, 1h, 1d",
            ),
        }

"""What every node type that sends shares: a provider to send through first, a suppression
that may skip instead of fail, a preview that renders and checks what would be sent, and a
placeholder output in the shape of a channel's result (workers.nodes.base.Channel.send)."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any, ClassVar

from workflows.definition import PROVIDER_NAME
from workflows.nodes.base import NodePreview, NodeType, Problem, RenderedField, RenderError

if TYPE_CHECKING:
    from django import forms


class SendingType(NodeType):
    """A node type that sends on `channel` (each subclass names it; the channel's provider code
    is in workers.nodes and workers.providers)."""

    field_schemas: ClassVar[dict[str, dict[str, Any]]] = {
        "provider": {"type": "string", "pattern": PROVIDER_NAME.pattern},
        "skip_suppressed": {"type": "boolean"},
    }

    def problems(self, node: dict[str, Any]) -> list[Problem]:
        found: list[Problem] = []
        if not isinstance(node.get("skip_suppressed", False), bool):
            found.append(("skip_suppressed", "must be true or false"))
        provider = node.get("provider")
        if provider is not None and not (
            isinstance(provider, str) and PROVIDER_NAME.match(provider)
        ):
            found.append(
                (
                    "provider",
                    "must be a provider's name: lower-case letters, digits and _, starting "
                    "with a letter",
                )
            )
        return found

    def preview(self, node: dict[str, Any], context: dict[str, Any], now: datetime) -> NodePreview:
        fields, values, first_error = [], {}, ""
        for name in self.rendered_fields(node):
            try:
                values[name] = self.field_render(node, name, context)
                fields.append(RenderedField(name, values[name]))
            except RenderError as exc:
                fields.append(RenderedField(name, None, exc.detail))
                first_error = first_error or str(exc)
        if not first_error:
            try:
                self.recipient_check(node, values)
            except RenderError as exc:
                first_error = str(exc)
        return NodePreview(node["id"], self.name, fields, error=first_error)

    def placeholder(
        self, node: dict[str, Any], *, preview: NodePreview, payload: dict[str, Any], now: datetime
    ) -> dict[str, Any]:
        return {
            "message_id": f"<preview.{node['id']}@notiflow.local>",
            "to": preview.value("to") or "",
            "sent_at": now.isoformat(),
        }

    def summary(self, node: dict[str, Any]) -> str:
        return f"{self.name} → {node.get('to', '')}"

    def form_fields(self) -> dict[str, forms.Field]:
        from django import forms

        return {
            "to": forms.CharField(required=False, strip=False, label="To"),
            "skip_suppressed": forms.BooleanField(
                required=False,
                label="Skip suppressed",
                help_text="a suppressed recipient skips this node; unchecked, it fails the run",
            ),
            "provider": forms.CharField(
                required=False,
                max_length=50,
                help_text="optional: the provider to send through first (e.g. ses); empty: the "
                "first",
            ),
        }

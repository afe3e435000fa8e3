"""What every node type that sends shares: a provider to send through first, a suppression
that may skip instead of fail, a `to` that falls back to the run's recipient's address (and a
missing address that may skip instead of fail: `skip_missing`), a preview that renders and
checks what would be sent, and a placeholder output in the shape of a channel's result
(workers.channels.base.Channel.send)."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any, ClassVar

from workflows.channels import channel_spec
from workflows.decisions import SKIPPED, StepDecision
from workflows.definition import PROVIDER_NAME
from workflows.nodes.base import NodePreview, NodeType, Problem, RenderedField, RenderError

if TYPE_CHECKING:
    from django import forms


class MissingAddress(RenderError):
    """A send node without a `to` whose run has no recipient, or whose recipient has no address
    for its channel (`missing`: `recipient`, `recipient.email`, `recipient.phone`). Permanent,
    like every RenderError, unless the node says `skip_missing`: then the node is skipped."""

    def __init__(self, message: str, *, missing: str):
        super().__init__(message, field="to")
        self.missing = missing

    def skipped_output(self) -> dict[str, Any]:
        """The output of the node skipped for it (the step log's, and in vars)."""
        return {"skipped": str(self), "missing": self.missing}

    def skipped_decision(self, *, channel: str, who: str) -> StepDecision:
        """What the step decided (workflows.decisions): skipped for want of an address."""
        label = channel_spec(channel).label
        if self.missing == "recipient":
            why = "the node has no 'to' and the run no recipient"
        else:
            why = f"{who} has no address for it ({self.missing} is empty)"
        evidence = {"channel": channel, "missing": self.missing, "skip_missing": True}
        return StepDecision(SKIPPED, f"{label} skipped: {why}", "missing_address", evidence)


class SendingType(NodeType):
    """A node type that sends on `channel` (each subclass names it; what the channel is, its
    spec, is in workflows.channels, its sender and providers in workers.channels and
    workers.providers). Its `to` is optional: left out (or empty), the run's recipient's
    `address_field` (the spec's `profile_field`) is the address. A channel without one (push,
    chat: the addresses are the recipient's channel data, read when sending) gives no `to` from
    the recipient."""

    @property
    def address_field(self) -> str:
        return channel_spec(str(self.channel)).profile_field

    field_schemas: ClassVar[dict[str, dict[str, Any]]] = {
        "provider": {"type": "string", "pattern": PROVIDER_NAME.pattern},
        "skip_suppressed": {"type": "boolean"},
        "skip_missing": {"type": "boolean"},
    }

    @property
    def fields(self) -> tuple[str, ...]:
        if not self.address_field:
            return super().fields
        # `to` first, where it stood when it was required: the API shows a node's fields in
        # this order.
        return ("to", *(name for name in super().fields if name != "to"))

    def rendered_fields(self, node: dict[str, Any]) -> list[str]:
        """Every field the base renders, and `to` always (from the recipient when not set)."""
        names = super().rendered_fields(node)
        return names if "to" in names or not self.address_field else ["to", *names]

    def field_render(self, node: dict[str, Any], name: str, context: dict[str, Any]) -> str:
        if name == "to" and node.get("to") in (None, ""):
            return self.recipient_address(node, context)
        return super().field_render(node, name, context)

    def recipient_address(self, node: dict[str, Any], context: dict[str, Any]) -> str:
        """The run's recipient's address for this channel, for a node without a `to`;
        MissingAddress naming what is missing."""
        where, field = f"node {node['id']!r}", self.address_field
        recipient = context.get("recipient")
        if not isinstance(recipient, dict):
            message = f"{where}: no 'to', and the run has no recipient to send to"
            raise MissingAddress(message, missing="recipient")
        address = recipient.get(field)
        if not isinstance(address, str) or not address.strip():
            message = (
                f"{where}: no 'to', and recipient {recipient.get('id')!r} has no {field} "
                f"(recipient.{field})"
            )
            raise MissingAddress(message, missing=f"recipient.{field}")
        return address

    def problems(self, node: dict[str, Any]) -> list[Problem]:
        found: list[Problem] = []
        for flag in ("skip_suppressed", "skip_missing"):
            if not isinstance(node.get(flag, False), bool):
                found.append((flag, "must be true or false"))
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
            except MissingAddress as exc:
                if not node.get("skip_missing"):
                    raise
                return NodePreview(node["id"], self.name, note=f"skipped: {exc}")
            except RenderError as exc:
                fields.append(RenderedField(name, None, exc.detail))
                first_error = first_error or str(exc)
        if not first_error:
            try:
                finished = self.message_finish(node, values, context)
                fields = [RenderedField(f.name, finished.get(f.name, f.value)) for f in fields]
                fields += [RenderedField(k, v) for k, v in finished.items() if k not in values]
                self.recipient_check(node, finished)
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
        return f"{self.name} → {node.get('to') or 'recipient.' + self.address_field}"

    def form_fields(self) -> dict[str, forms.Field]:
        from django import forms

        return {
            "to": forms.CharField(required=False, strip=False, label="To"),
            "skip_suppressed": forms.BooleanField(
                required=False,
                label="Skip suppressed",
                help_text="a suppressed recipient skips this node; unchecked, it fails the run",
            ),
            "skip_missing": forms.BooleanField(
                required=False,
                label="Skip missing address",
                help_text="no To and a recipient without this channel's address skips this "
                "node; unchecked, it fails the run",
            ),
            "provider": forms.CharField(
                required=False,
                max_length=50,
                help_text="optional: the provider to send through first (e.g. ses); empty: the "
                "first",
            ),
        }

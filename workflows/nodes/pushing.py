"""What the two push node types share (`webpush`, `push`): a notification of `title`, `body`,
an optional `url` opened on a tap and an optional `icon`, all Liquid, sent to every address the
run's recipient has on the channel (`recipient.channels.webpush`: browser subscriptions;
`recipient.channels.fcm`: device tokens). The node names no address: the recipient does."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from workflows.channels import channel_spec
from workflows.nodes.base import NodePreview, Rendered, RenderError
from workflows.nodes.sending import SendingType

if TYPE_CHECKING:
    from django import forms

# A tap opens `url`; a push service shows `icon`: each must be an absolute https URL or a path.
_LINK_FIELDS = ("url", "icon")


class PushingType(SendingType):
    required = ("title", "body")
    optional = ("url", "icon", "provider")
    templates = ("title", "body", "url", "icon")
    form_groups = (("title",), ("body",), ("url", "icon"), ("provider",))

    @property
    def address_key(self) -> str:
        """Where the channel finds the run's recipient's addresses: recipient.channels[key]
        (its spec's `channels_key`)."""
        return channel_spec(str(self.channel)).channels_key

    def address_problem(self, address: Any) -> str:
        """Why `address` cannot be one of a recipient's addresses on this channel, or "": what
        the worker sends to and what POST /api/recipients/<id>/channels/<channel>/ accepts."""
        raise NotImplementedError

    def recipient_check(self, node: dict[str, Any], rendered: Rendered) -> Rendered:
        """The rendered fields as sent, or RenderError: an empty title, a link that is neither
        https nor a path."""
        where = f"node {node['id']!r}"
        if not rendered.get("title", "").strip():
            raise RenderError(f"{where}: 'title' rendered empty", field="title")
        for name in _LINK_FIELDS:
            value = rendered.get(name, "").strip()
            if value and not (value.startswith("https://") or value.startswith("/")):
                raise RenderError(
                    f"{where}: {name!r} rendered {value[:100]!r}, not an https URL or a path",
                    field=name,
                )
        return {name: value.strip() for name, value in rendered.items()}

    def rendered_fields(self, node: dict[str, Any]) -> list[str]:
        """The templates, and `to`: the run's recipient's key (never a field of the node; the
        addresses are the recipient's, read when sending). Suppressions, the per-recipient
        send cap and a skipped send's output name the person by it."""
        return ["to", *super().rendered_fields(node)]

    def field_render(self, node: dict[str, Any], name: str, context: dict[str, Any]) -> str:
        if name != "to":
            return super().field_render(node, name, context)
        # Empty without a recipient: the channel fails the send saying so (a preview shows it).
        recipient = context.get("recipient")
        key = recipient.get("id") if isinstance(recipient, dict) else None
        return key if isinstance(key, str) else ""

    def recipients(self, node: dict[str, Any], rendered: Rendered) -> list[str]:
        return [rendered["to"]] if rendered.get("to") else []

    def placeholder(
        self, node: dict[str, Any], *, preview: NodePreview, payload: dict[str, Any], now: datetime
    ) -> dict[str, Any]:
        return {
            "message_id": f"<preview.{node['id']}@notiflow.local>",
            "to": [],
            "delivered": 0,
            "sent_at": now.isoformat(),
        }

    def summary(self, node: dict[str, Any]) -> str:
        return f"{self.name} → {node.get('title', '')}"

    def form_fields(self) -> dict[str, forms.Field]:
        from django import forms

        fields = super().form_fields()
        return {
            "provider": fields["provider"],
            "title": forms.CharField(required=False, strip=False),
            "body": forms.CharField(
                required=False, strip=False, widget=forms.Textarea(attrs={"rows": 6})
            ),
            "url": forms.CharField(
                required=False, strip=False, label="URL", help_text="optional: opened on a tap"
            ),
            "icon": forms.CharField(required=False, strip=False, help_text="optional"),
        }

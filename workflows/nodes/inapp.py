"""The in-app node type: a message in the run's recipient's inbox (docs/design/inbox.md, "In-app
inbox"). `title`, `body` (Liquid; at most BODY_MAX_LENGTH characters, whose small Markdown subset
becomes escaped HTML, workflows.markdown), `action_url` (Liquid: http(s) or a path on the
client's site, workflows.markdown.link_target_ok), `data` (free JSON for the client) and
`category`.

It sends through no provider: its run hands the message to the step (StepPort.inbox_store),
and the step's release stores it in its own statement, once per step whatever crashes; the
engine then announces `message.sent` on the `inapp` channel. A run without a recipient fails
here, permanently, naming `recipient`.
"""

from __future__ import annotations

import re
import uuid
from datetime import datetime
from typing import TYPE_CHECKING, Any, ClassVar

from workflows.markdown import link_target_ok, markdown_safe_html
from workflows.nodes.base import (
    NodePreview,
    NodeRun,
    NodeType,
    Problem,
    RenderedField,
    RenderError,
    StepPort,
    output_key,
)
from workflows.render_budget import RenderBudgetError
from workflows.templating import render_budget

if TYPE_CHECKING:
    from django import forms

INAPP_CHANNEL = "inapp"
CATEGORY_MAX_LENGTH = 100
TITLE_MAX_LENGTH = 500
# The body as rendered (some 1,500 words), checked before its Markdown renders: the renderer is
# linear, and this bounds its cost per message to milliseconds (tests/inbox/test_inapp_markdown.py)
# and what is stored twice (`body`, `body_html`).
BODY_MAX_LENGTH = 10_000
_CATEGORY = re.compile(r"^[-a-zA-Z0-9_]{1,100}$")


class InappNode(NodeType):
    name = "inapp"
    # A person's preferences turn it off by this name (`channels.inapp`), as they do a channel.
    delivers_on = "inapp"
    required = ("title", "body")
    optional = ("action_url", "data", "category")
    templates = ("title", "body", "action_url")
    outputs = True
    colours = ("#f3ecfa", "#7a4fb0")
    field_schemas: ClassVar[dict[str, dict[str, Any]]] = {
        "data": {"type": "object"},
        "category": {"type": "string", "pattern": _CATEGORY.pattern},
    }
    form_groups = (("title",), ("body",), ("action_url", "category"))

    def problems(self, node: dict[str, Any]) -> list[Problem]:
        found: list[Problem] = []
        if "data" in node and not isinstance(node["data"], dict):
            found.append(("data", "must be a JSON object"))
        category = node.get("category")
        if category is not None and not (isinstance(category, str) and _CATEGORY.match(category)):
            found.append(("category", "must be 1-100 letters, digits, '-' or '_'"))
        return found

    def message_render(self, node: dict[str, Any], context: dict[str, Any]) -> dict[str, Any]:
        """The message as stored: the rendered fields checked, the body's HTML, `data` and
        `category`, all within one render budget; RenderError naming the field (permanent,
        a budget exceeded included)."""
        with render_budget():
            return self._message_render(node, context)

    def _message_render(self, node: dict[str, Any], context: dict[str, Any]) -> dict[str, Any]:
        where = f"node {node['id']!r}"
        fields = {
            name: self.field_render(node, name, context) for name in self.rendered_fields(node)
        }
        title = fields["title"].strip()
        if not title:
            raise RenderError(f"{where}: 'title' rendered empty", field="title")
        if len(title) > TITLE_MAX_LENGTH:
            raise RenderError(
                f"{where}: 'title' rendered {len(title)} characters (at most {TITLE_MAX_LENGTH})",
                field="title",
            )
        action_url = fields.get("action_url", "").strip()
        if action_url and not link_target_ok(action_url):
            raise RenderError(
                f"{where}: 'action_url' rendered {action_url[:200]!r}, which is not an http(s) "
                "URL nor a path starting with one / (without a backslash, a space or a control "
                "character)",
                field="action_url",
            )
        body = fields["body"]
        if len(body) > BODY_MAX_LENGTH:
            raise RenderError(
                f"{where}: 'body' rendered {len(body)} characters (at most {BODY_MAX_LENGTH})",
                field="body",
            )
        try:
            body_html = markdown_safe_html(body)
        except RenderBudgetError as exc:
            raise RenderError(f"{where} field 'body': Markdown: {exc}", field="body") from exc
        return {
            "title": title,
            "body": body,
            "body_html": body_html,
            "action_url": action_url,
            "category": str(node.get("category") or ""),
            "data": node.get("data") or {},
        }

    def run(self, node: dict[str, Any], *, step: StepPort) -> NodeRun:
        message = self.message_render(node, step.context)  # first: as the preview fails
        if not step.recipient:
            raise RenderError(
                f"node {node['id']!r}: the run has no recipient; an inapp node stores its "
                "message in the recipient's inbox (trigger with `recipient`)",
                field="recipient",
            )
        message_id = str(uuid.uuid4())
        output = {
            "message_id": message_id,
            "channel": INAPP_CHANNEL,
            "recipient": step.recipient,
            "sent_at": step.now.isoformat(),
        }
        stored = step.inbox_store(message_id=message_id, node_id=node["id"], message=message)
        return NodeRun(
            output=output,
            vars_patch={output_key(node): output},
            inbox=stored,
            delivered=True,
            on_commit=[step.inbox_notifier()],
        )

    def preview(self, node: dict[str, Any], context: dict[str, Any], now: datetime) -> NodePreview:
        message = self.message_render(node, context)
        fields = [
            RenderedField(name, message[name])
            for name in ("title", "body", "action_url")
            if name in self.rendered_fields(node)
        ]
        return NodePreview(node["id"], self.name, fields, note="stored in the recipient's inbox")

    def placeholder(
        self, node: dict[str, Any], *, preview: NodePreview, payload: dict[str, Any], now: datetime
    ) -> dict[str, Any]:
        return {
            "message_id": str(uuid.UUID(int=0)),
            "channel": INAPP_CHANNEL,
            "recipient": "",
            "sent_at": now.isoformat(),
        }

    def summary(self, node: dict[str, Any]) -> str:
        return f"inapp · {node.get('title', '')}"

    def form_fields(self) -> dict[str, forms.Field]:
        from django import forms

        return {
            "title": forms.CharField(required=False, strip=False),
            "body": forms.CharField(
                required=False,
                strip=False,
                widget=forms.Textarea(attrs={"rows": 3}),
                help_text="**bold**, *italic*, `code`, [links](https://…); blank line: paragraph",
            ),
            "action_url": forms.CharField(
                required=False, help_text="where a click on the message goes (http(s) or /path)"
            ),
            "category": forms.CharField(required=False, max_length=CATEGORY_MAX_LENGTH),
        }

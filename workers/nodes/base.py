"""What a sending node type provides: render its templates, then send through a provider."""

from __future__ import annotations

from typing import Any, Protocol

from workers.errors import PermanentError
from workflows.templating import TemplateError, template_render

Rendered = dict[str, str]


class Channel(Protocol):
    name: str

    def render(self, node: dict[str, Any], context: dict[str, Any]) -> Rendered:
        """Render the node's templates. Pure; raises PermanentError."""
        ...

    def send(self, rendered: Rendered, *, idempotency_key: str) -> dict[str, Any]:
        """Deliver once; returns {"message_id", "to", "sent_at"}. Raises Transient/PermanentError.

        `idempotency_key` is `<trigger_id>:<node_id>` and must travel to the provider.
        """
        ...


def render_fields(
    node: dict[str, Any], context: dict[str, Any], fields: tuple[str, ...]
) -> Rendered:
    rendered: Rendered = {}
    for field in fields:
        source = node.get(field)
        if source in (None, ""):
            continue
        try:
            rendered[field] = template_render(source, context)
        except TemplateError as exc:
            raise PermanentError(f"node {node['id']!r} field {field!r}: {exc}") from exc
    recipient = rendered.get("to", "").strip()
    if not recipient:
        raise PermanentError(f"node {node['id']!r}: recipient 'to' rendered empty")
    rendered["to"] = recipient
    return rendered

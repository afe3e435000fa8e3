"""Email layouts (docs/layouts.md): which layout an email node is sent in, and how its message
is put into it. Pure but for the layouts themselves, which the content app gives through
workflows.hooks.LAYOUT (content/selectors.py).

The chain, first set wins: the node's `layout` → the run's tenant's layout
(tenants.selectors.RunTenant.context's `layout`) → the workflow's `default_layout` →
NOTIFLOW_DEFAULT_LAYOUT. None set: the email is sent as its node writes it. A layout's `html` holds `{{ content }}` once: the HTML part
is the layout rendered with `content` = the node's rendered `html` (or, without one, its body
escaped with its line breaks kept); the text part is the layout's `text` with `content` = the
body, or the body alone when the layout has no `text`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from markupsafe import Markup, escape

from workflows.hooks import LAYOUT
from workflows.rendered_with import rendered_with_note
from workflows.templating import TemplateError, template_render

# `{{ content }}`, with any whitespace control (`{{- content -}}`): the one place a layout's
# message goes.
CONTENT_SLOT = re.compile(r"\{\{-?\s*content\s*-?\}\}")
# The name the layout's templates read the message by.
CONTENT = "content"


@dataclass(frozen=True)
class Layout:
    """A layout as the content app stores it: `html` with `{{ content }}` once, `text` with it
    once or empty (no text layout), and the version they are."""

    key: str
    version: int
    html: str
    text: str = ""


class LayoutMissing(TemplateError):
    """A layout named by the chain that does not exist (deleted since the workflow was saved,
    or a setting naming none): the step fails permanently, naming it and who named it."""


def content_slots(source: str) -> int:
    """How many `{{ content }}` a layout template holds."""
    return len(CONTENT_SLOT.findall(source))


def layout_key_for(
    *, node: dict[str, Any], tenant: dict[str, Any] | None = None, default_layout: str = ""
) -> tuple[str, str]:
    """The key of the layout `node` is sent in and who named it (`node`, `tenant`, `workflow`,
    `NOTIFLOW_DEFAULT_LAYOUT`), or ("", "") for none. `tenant` is the run's tenant as templates
    see it (its `layout`: tenants.selectors.RunTenant.context); `default_layout` is the workflow's."""
    if isinstance(node.get("layout"), str) and node["layout"]:
        return node["layout"], "node"
    if tenant is not None and isinstance(tenant.get("layout"), str) and tenant["layout"]:
        return tenant["layout"], "tenant"
    if default_layout:
        return default_layout, "workflow"
    setting = str(settings.NOTIFLOW_DEFAULT_LAYOUT or "")
    return (setting, "NOTIFLOW_DEFAULT_LAYOUT") if setting else ("", "")


def layout_get(key: str, tenant: str | None = None) -> Layout | None:
    """The layout stored under `key`, or None."""
    for lookup in LAYOUT:
        found = lookup(key, tenant)
        if found is not None:
            return found
    return None


def body_as_html(body: str) -> Markup:
    """A plain-text body as HTML: escaped, each line break kept as `<br>`."""
    lines = str(body).replace("\r\n", "\n").split("\n")
    return Markup("<br>\n").join(escape(line) for line in lines)


def message_laid_out(
    node: dict[str, Any], rendered: dict[str, str], context: dict[str, Any]
) -> dict[str, str]:
    """`rendered` (the node's fields, rendered) with `html` and `body` put into the node's
    layout (layout_key_for: the workflow's default is the context's `workflow.default_layout`),
    rendered with the context and `content`; unchanged without a layout. TemplateError naming
    the layout when it is missing or does not render. The layout's version is noted for the
    step log (workflows.rendered_with)."""
    tenant, workflow = context.get("tenant"), context.get("workflow")
    default_layout = workflow.get("default_layout") if isinstance(workflow, dict) else None
    key, named_by = layout_key_for(
        node=node,
        tenant=tenant if isinstance(tenant, dict) else None,
        default_layout=default_layout if isinstance(default_layout, str) else "",
    )
    if not key:
        return rendered
    tenant_id = tenant.get("id") if isinstance(tenant, dict) else None
    layout = layout_get(key, tenant_id if isinstance(tenant_id, str) else None)
    if layout is None:
        raise LayoutMissing(f"layout {key!r} (named by the {named_by}) does not exist")
    rendered_with_note("layouts", key, layout.version)
    body = rendered.get("body", "")
    inner = Markup(rendered["html"]) if rendered.get("html") else body_as_html(body)  # noqa: S704
    scope = {"tenant": None, **context}
    try:
        html = template_render(layout.html, {**scope, CONTENT: inner}, html=True)
        text = template_render(layout.text, {**scope, CONTENT: body}) if layout.text else body
    except TemplateError as exc:
        raise TemplateError(f"layout {key!r}: {exc}") from exc
    return {**rendered, "html": html, "body": text}


# A layout's or a partial's key: what `{% render "…" %}` and `"layout"` name.
KEY_PATTERN = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")
KEY_RULE = "1-64 lower-case letters, digits, '_' or '-', starting with a letter or digit"


def layout_problem(key: Any) -> str:
    """Why `key` cannot name a layout here (not a key, or no layout has it), or ""."""
    if not isinstance(key, str) or not KEY_PATTERN.match(key):
        return f"must be a layout's key: {KEY_RULE}"
    if layout_get(key) is None:
        return f"layout {key!r} does not exist"
    return ""

"""Partials (docs/layouts.md): reusable Liquid a template renders with python-liquid's own
`render` tag, `{% render "footer" %}`, found by this loader in the partials the content app
gives through workflows.hooks.PARTIAL (content/selectors.py).

python-liquid's `render` asks the environment's loader for the template by name
(`Environment.get_template` → `BaseLoader.load`) and renders it in a copy of the render context
(`RenderContext.copy`: the same class, so the same budget, with the parent's globals and the
tag's arguments; the output goes to the same bounded buffer). So a partial's loops, assignments,
output and clock are the render's budget (workflows.templating). This loader adds what python-liquid
leaves to it: where the source comes from, a cache of the parsed partial (the one bounded cache
of parsed templates, keyed by the partial's name and source: a changed partial is a new entry),
the version used (for the step log, workflows.rendered_with) and a depth limit (MAX_DEPTH: a
partial rendering itself stops there, with an error naming it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from liquid.exceptions import TemplateNotFoundError
from liquid.loader import BaseLoader, TemplateSource

from workflows.hooks import PARTIAL
from workflows.rendered_with import rendered_with_note

if TYPE_CHECKING:
    from collections.abc import Mapping

    from liquid import Environment, RenderContext
    from liquid.template import BoundTemplate

# How deep partials may render partials (a template's `render` is depth 1).
MAX_DEPTH = 5


class PartialDepthError(TemplateNotFoundError):
    """A partial rendered more than MAX_DEPTH deep (a partial that renders itself)."""


def partial_get(name: str, tenant: str | None = None) -> tuple[str, int] | None:
    """The partial stored under `name`: (its source, its version), or None."""
    for lookup in PARTIAL:
        found = lookup(name, tenant)
        if found is not None:
            return found
    return None


def _depth(context: RenderContext | None) -> int:
    """How many partials deep `context` renders (each `render` copies the context once)."""
    depth = 0
    while context is not None and context.parent_context is not None:
        depth, context = depth + 1, context.parent_context
    return depth


def _tenant(context: RenderContext | None) -> str | None:
    tenant = context.globals.get("tenant") if context is not None else None
    tenant_id = tenant.get("id") if isinstance(tenant, dict) else None
    return tenant_id if isinstance(tenant_id, str) else None


class PartialLoader(BaseLoader):
    """The partials, by name, for the `render` tag of the templates' environments."""

    def get_source(
        self,
        env: Environment,
        template_name: str,
        *,
        context: RenderContext | None = None,
        **kwargs: object,
    ) -> TemplateSource:
        found = partial_get(template_name, _tenant(context))
        if found is None:
            raise TemplateNotFoundError(f"partial {template_name!r} does not exist")
        return TemplateSource(found[0], template_name, None)

    def load(
        self,
        env: Environment,
        name: str,
        *,
        globals: Mapping[str, object] | None = None,
        context: RenderContext | None = None,
        **kwargs: object,
    ) -> BoundTemplate:
        if _depth(context) >= MAX_DEPTH:
            raise PartialDepthError(
                f"partial {name!r}: partials render partials over {MAX_DEPTH} deep (does a "
                "partial render itself?)"
            )
        found = partial_get(name, _tenant(context))
        if found is None:
            raise TemplateNotFoundError(f"partial {name!r} does not exist")
        source, version = found
        rendered_with_note("partials", name, version)
        parsed: Any = env.partial_parsed(source, name)  # type: ignore[attr-defined]
        return parsed  # type: ignore[no-any-return]

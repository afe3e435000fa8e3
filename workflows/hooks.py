"""The hooks workflows calls, which rooms above register in (common/hooks.py; docs/design/hooks.md,
"Hooks"). `workflows` imports no other app: what it needs of one comes through here."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from common.hooks import Hook

if TYPE_CHECKING:
    from workflows.layouts import Layout
    from workflows.models import Workflow

# Whether a slug names a preference category that exists (recipients.Category): the validator
# refuses one that some check says does not. None registered: any well-formed slug passes.
CATEGORY_EXISTS: Hook[Callable[[str], bool]] = Hook()
# A saved workflow's warnings (workflows/warnings.py), each function returning its sentences.
SAVE_WARNING_HOOKS: Hook[Callable[[Workflow], list[str]]] = Hook()
# Panels on a workflow's admin page below its version history, each a function of the workflow
# returning its HTML, shown in the order registered.
WORKFLOW_PAGE_PANELS: Hook[Callable[[Workflow], str]] = Hook()
# A message of the translation catalogs (content/selectors.py): a function of (locale, key,
# tenant) returning the message (a string, or a plural object) or None; the first that has one
# wins. `tenant` is the run's tenant's id, or None (its catalog is consulted before the shared
# one: docs/tenants.md).
# None registered: every key is missing.
CATALOG_MESSAGE: Hook[Callable[[str, str, str | None], Any]] = Hook()
# Called when a key is in no catalog of a run's chain, before the `t` filter fails: a cache of the
# catalogs asks at once whether one changed (content/selectors.py), so a catalog made a moment
# ago in another process is found rather than failing the step. None registered: nothing to ask.
CATALOG_RECHECK: Hook[Callable[[], None]] = Hook()
# An email layout by key (content/selectors.py): a function of (key, tenant) returning a
# workflows.layouts.Layout or None; the first that has one wins. None registered: no layout exists.
LAYOUT: Hook[Callable[[str, str | None], Layout | None]] = Hook()
# A partial by name, for `{% render "footer" %}` (content/selectors.py): a function of (name,
# tenant) returning (its Liquid source, its version) or None; the first that has one wins.
PARTIAL: Hook[Callable[[str, str | None], tuple[str, int] | None]] = Hook()
# A tenant as its runs see it (tenants/selectors.py), for the preview: a function of the tenant's
# id returning (its context, the templates' `tenant`; its default locale), or None when no tenant
# has that id. None registered: no tenant exists.
RUN_TENANT: Hook[Callable[[str], tuple[dict[str, Any], str] | None]] = Hook()

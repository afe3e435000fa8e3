"""The hooks workflows calls, which rooms above register in (common/hooks.py; docs/design.md,
"Hooks"). `workflows` imports no other app: what it needs of one comes through here."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from common.hooks import Hook

if TYPE_CHECKING:
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
# wins. `tenant` is None until tenants exist (a tenant's catalog would be consulted first).
# None registered: every key is missing.
CATALOG_MESSAGE: Hook[Callable[[str, str, str | None], Any]] = Hook()

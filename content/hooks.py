"""What content registers in the hooks of the rooms below (common/hooks.py; docs/design.md,
"Hooks"): the catalogs' messages, for workflows' `t` filter."""

from __future__ import annotations


def register() -> None:
    from content.selectors import catalog_message
    from workflows.hooks import CATALOG_MESSAGE

    CATALOG_MESSAGE.register(catalog_message)

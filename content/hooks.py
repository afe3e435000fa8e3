"""What content registers in the hooks of the rooms below (common/hooks.py; docs/design/hooks.md,
"Hooks"): the catalogs' messages, for workflows' `t` filter; the layouts and partials, for its
emails and `{% render %}`; a tenant's catalogs, deleted with it."""

from __future__ import annotations


def register() -> None:
    from content.selectors import catalog_message, catalogs_recheck, layout_of, partial_of
    from content.services import tenant_catalogs_delete
    from tenants.hooks import TENANT_ERASERS
    from workflows.hooks import CATALOG_MESSAGE, CATALOG_RECHECK, LAYOUT, PARTIAL

    CATALOG_MESSAGE.register(catalog_message)
    CATALOG_RECHECK.register(catalogs_recheck)
    LAYOUT.register(layout_of)
    PARTIAL.register(partial_of)
    TENANT_ERASERS.register(tenant_catalogs_delete)

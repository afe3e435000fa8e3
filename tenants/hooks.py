"""The hooks tenants calls (common/hooks.py; docs/design/hooks.md, "Hooks"): this room is below the
apps that keep things per tenant, which it cannot import; and what it registers in workflows'
(a tenant as its runs see it, for the preview)."""

from __future__ import annotations

from collections.abc import Callable

from common.hooks import Hook

# What the rooms above keep per tenant, deleted with it in the same transaction
# (tenants.services.tenant_delete): each a function of the tenant's id returning how many things
# it removed, by its name in the delete's answer.
TENANT_ERASERS: Hook[Callable[[str], dict[str, int]]] = Hook()


def register() -> None:
    """Tenants tells the workflow preview how a run of a tenant sees it."""
    from tenants.selectors import tenant_as_run_sees_it
    from workflows.hooks import RUN_TENANT

    RUN_TENANT.register(tenant_as_run_sees_it)

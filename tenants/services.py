"""Writes of tenants (docs/tenants.md). Every change writes a TenantChange (who, when) in the
transaction that makes it, under the change log's lock (common.generations.changes_in_order),
which is how every process learns of it (tenants/selectors.py)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.db import transaction
from django.utils import timezone

from common.generations import changes_in_order
from common.invalid import Invalid
from tenants.hooks import TENANT_ERASERS
from tenants.models import Tenant, TenantChange
from tenants.selectors import TENANTS
from tenants.validation import tenant_id_problem, tenant_problems
from workflows.locales import locale_canonical

# pg_advisory_xact_lock's key for tenant changes ("tenant" in ASCII).
_LOCK_KEY = 0x74656E616E74


class TenantInvalid(Invalid):
    """The tenant breaks the rules (tenants/validation.py); nothing was saved."""


@transaction.atomic
def tenant_put(
    *, tenant_id: str, fields: Mapping[str, Any], actor: str = ""
) -> tuple[Tenant, bool]:
    """Create or replace tenant `tenant_id` with `fields` (`name`, `properties`, and optionally
    `default_locale`, `layout`, `preferences`: those left out are emptied): (tenant, created).
    TenantInvalid, saving nothing. The change is recorded in the same transaction."""
    problems = {"id": [p]} if (p := tenant_id_problem(tenant_id)) else {}
    problems.update(tenant_problems({"name": "", "properties": {}, **fields}))
    if problems:
        raise TenantInvalid(problems)
    locale = fields.get("default_locale") or ""
    changes_in_order(_LOCK_KEY)
    tenant, created = Tenant.objects.update_or_create(
        id=tenant_id,
        defaults={
            "name": fields.get("name", ""),
            "properties": fields.get("properties", {}),
            "default_locale": locale_canonical(locale) if locale else "",
            "layout": fields.get("layout") or "",
            "preferences": fields.get("preferences") or {},
            "updated_at": timezone.now(),
            "updated_by": actor,
        },
    )
    TenantChange.objects.create(tenant=tenant_id, change="put", created_by=actor)
    TENANTS.forget()
    return tenant, created


@transaction.atomic
def tenant_delete(*, tenant_id: str, actor: str = "") -> dict[str, int] | None:
    """Delete tenant `tenant_id` with what the rooms above keep for it, in one transaction (its
    catalogs through TENANT_ERASERS, each recording its version; people's preferences for it
    by their foreign key): how many of each the erasers removed, or None when there was no such
    tenant. Its runs keep its id (their history); a run
    still going reads it as an empty tenant (tenants.selectors.tenant_for_run)."""
    changes_in_order(_LOCK_KEY)
    tenant = Tenant.objects.select_for_update().filter(id=tenant_id).first()
    if tenant is None:
        return None
    removed: dict[str, int] = {}
    for eraser in TENANT_ERASERS:
        removed.update(eraser(tenant_id))
    tenant.delete()
    TenantChange.objects.create(tenant=tenant_id, change="delete", created_by=actor)
    TENANTS.forget()
    return removed

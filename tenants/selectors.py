"""Reads of tenants: every process keeps them all in memory and knows within a second that one
changed (common/generations.py: the largest TenantChange id, asked at most every
RECHECK_SECONDS). A run without a tenant reads nothing; a step of a run with one reads the copy
(tests/test_query_counts.py)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.db.models import Max

from common.generations import GenerationCache
from tenants.models import Tenant, TenantChange
from tenants.validation import tenant_id_problem


@dataclass(frozen=True)
class RunTenant:
    """A tenant as a run sees it: `context` is the templates' `tenant` (`id`, `name`,
    `properties`, and the key of its emails' `layout`, which workflows.layouts.layout_key_for
    reads after the node's own); the locale and layout its runs prefer, its category defaults. A tenant
    deleted since the run began reads as one with every field empty (`found` False)."""

    id: str
    found: bool
    name: str = ""
    properties: dict[str, Any] = field(default_factory=dict)
    default_locale: str = ""
    layout: str = ""
    preferences: dict[str, Any] = field(default_factory=dict)

    @property
    def context(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "properties": self.properties,
            "layout": self.layout,
        }

    def category_defaults(self, category: str) -> dict[str, Any]:
        """The tenant's defaults of preference category `category` ({channel: bool})."""
        defaults = self.preferences.get(category) if category else None
        return defaults if isinstance(defaults, dict) else {}


def _generation() -> int | None:
    return TenantChange.objects.aggregate(latest=Max("id"))["latest"]


def _load() -> dict[str, RunTenant]:
    return {
        tenant.id: RunTenant(
            id=tenant.id,
            found=True,
            name=tenant.name,
            properties=tenant.properties if isinstance(tenant.properties, dict) else {},
            default_locale=tenant.default_locale,
            layout=tenant.layout,
            preferences=tenant.preferences if isinstance(tenant.preferences, dict) else {},
        )
        for tenant in Tenant.objects.all()
    }


TENANTS: GenerationCache[dict[str, RunTenant]] = GenerationCache(
    generation=_generation, load=_load, empty={}
)


def tenant_for_run(tenant_id: str) -> RunTenant:
    """The tenant a run names, from this process's copy; one deleted since (or unknown) reads as
    empty (`found` False): its templates still render, its defaults decide nothing. An id the
    copy lacks is asked for again at once (a tenant created a moment ago by another process)."""
    found = TENANTS.value().get(tenant_id)
    if found is None:
        TENANTS.forget()
        found = TENANTS.value().get(tenant_id)
    return found if found is not None else RunTenant(id=tenant_id, found=False)


def tenant_scope(tenant_id: str) -> dict[str, Any]:
    """What a run's tenant adds to its execution context (workflows.semantics.execution_context's
    `tenant` and `tenant_locale`, docs/tenants.md), from this process's copy (no statement);
    nothing for a run without one. The engine's steps and the person's dry run both ask here."""
    if not tenant_id:
        return {}
    tenant = tenant_for_run(tenant_id)
    return {"tenant": tenant.context, "tenant_locale": tenant.default_locale}


def tenant_as_run_sees_it(tenant_id: str) -> tuple[dict[str, Any], str] | None:
    """A tenant's context (the templates' `tenant`) and default locale, as tenant_for_run gives
    them to a run of it, or None when no tenant has that id (tenant_exists). Registered in
    workflows.hooks.RUN_TENANT: the workflow preview renders as a run of the tenant would."""
    if not tenant_exists(tenant_id):
        return None
    tenant = tenant_for_run(tenant_id)
    return tenant.context, tenant.default_locale


def tenant_exists(tenant_id: str) -> bool:
    """Whether `tenant_id` names a tenant (intake, the per-tenant endpoints): this process's copy,
    asked again at once when it does not hold the id (a tenant made a moment ago by another
    process is found; an unknown id costs one statement)."""
    if tenant_id in TENANTS.value():
        return True
    TENANTS.forget()
    return tenant_id in TENANTS.value()


def tenant_problem(tenant_id: str) -> str:
    """Why `tenant_id` names no tenant ("" when it names one), from this process's copy
    (tenant_exists): a trigger's `tenant`, the `?tenant=` of the endpoints kept per tenant."""
    if problem := tenant_id_problem(tenant_id):
        return f"the id {problem}"
    if not tenant_exists(tenant_id):
        return (
            f"tenant {tenant_id!r} does not exist; create it first (PUT /api/tenants/{tenant_id}/)"
        )
    return ""

"""Tenants (docs/tenants.md): the organisations one installation sends for. One row per tenant as
it is now, and one row per change (who, when), whose id, which only grows, is what every process
compares to know that some tenant changed (tenants/selectors.py)."""

from __future__ import annotations

from django.db import models

TENANT_ID_MAX_LENGTH = 64
LOCALE_MAX_LENGTH = 35  # a BCP 47 tag, as a recipient's and a catalog's
LAYOUT_KEY_MAX_LENGTH = 100


class Tenant(models.Model):
    """One organisation: what its runs' templates read (`tenant.name`, `tenant.properties`),
    the locale and layout its runs prefer to their workflow's, and its defaults per preference
    category ({category: {channel: bool}}), between a person's own choices and the category's
    defaults. Changed only through tenants/services.py, which records each change."""

    id = models.CharField(primary_key=True, max_length=TENANT_ID_MAX_LENGTH)
    name = models.CharField(max_length=255)
    properties = models.JSONField(default=dict)
    # Canonical (workflows.locales.locale_canonical), or empty: the workflow's decides.
    default_locale = models.CharField(max_length=LOCALE_MAX_LENGTH, blank=True, default="")
    # A layout's key (the content app's layouts), or empty: stored as given.
    layout = models.CharField(max_length=LAYOUT_KEY_MAX_LENGTH, blank=True, default="")
    preferences = models.JSONField(default=dict)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField()
    updated_by = models.CharField(max_length=255, blank=True, default="")

    class Meta:
        db_table = "tenant"
        ordering = ["id"]

    def __str__(self) -> str:
        return f"{self.name} ({self.id})" if self.name else self.id


class TenantChange(models.Model):
    """One change of one tenant (`put` or `delete`), by whom and when. Append-only (tenants
    migration 0001)."""

    tenant = models.CharField(max_length=TENANT_ID_MAX_LENGTH)
    change = models.CharField(max_length=10)
    created_by = models.CharField(max_length=255, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "tenant_change"
        ordering = ["-id"]

    def __str__(self) -> str:
        return f"{self.tenant} {self.change}"

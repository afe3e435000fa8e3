"""Tenants in the admin (docs/tenants.md): list them, edit one (its properties and category
defaults as JSON), see who changed which and when. Every save and delete goes through
tenants/services.py, so each is recorded and reaches every process's copy; the form refuses
what the API refuses (tenants/validation.py), each problem named by its path."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlencode

from django import forms
from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString

from common.actors import actor_of
from common.admin import ReadOnlyAdminMixin, StorableJSONField, time_column
from tenants.models import Tenant, TenantChange
from tenants.services import tenant_delete, tenant_put
from tenants.validation import tenant_id_problem, tenant_problems

# A JSON box grows with its content up to this many lines, then scrolls.
JSON_ROWS_MAX = 24


class IndentedJSONField(StorableJSONField):
    def prepare_value(self, value: Any) -> Any:
        if isinstance(value, dict):
            return json.dumps(value, indent=2, ensure_ascii=False)
        return super().prepare_value(value)


class TenantForm(forms.ModelForm):
    properties = IndentedJSONField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 8, "cols": 80, "spellcheck": "false"}),
        help_text="Any JSON object; templates read {{ tenant.properties.logo_url }}.",
    )
    preferences = IndentedJSONField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 6, "cols": 80, "spellcheck": "false"}),
        help_text='Category defaults: {"comments": {"email": false}}; between a person\'s own '
        "preferences and the category's defaults.",
    )

    class Meta:
        model = Tenant
        fields = ("id", "name", "properties", "default_locale", "layout", "preferences")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # Each JSON box as tall as what it holds (it showed 8 lines of a longer object).
        for name in ("properties", "preferences"):
            lines = str(self[name].value() or "").count("\n") + 1  # the JSON as shown
            self.fields[name].widget.attrs["rows"] = min(JSON_ROWS_MAX, max(4, lines + 1))

    def clean_id(self) -> str:
        tenant_id = self.cleaned_data["id"]
        if problem := tenant_id_problem(tenant_id):
            raise forms.ValidationError(problem)
        return str(tenant_id)

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        fields = {
            "name": cleaned.get("name", ""),
            "properties": cleaned.get("properties") or {},
            "default_locale": cleaned.get("default_locale", ""),
            "layout": cleaned.get("layout", ""),
            "preferences": cleaned.get("preferences") or {},
        }
        for where, found in tenant_problems(fields).items():
            field = where.partition(".")[0]
            self.add_error(field if field in self.fields else None, f"{where}: {' '.join(found)}")
        return cleaned


@admin.register(Tenant)
class TenantAdmin(admin.ModelAdmin):
    form = TenantForm
    list_display = ["id", "name", "default_locale", "layout", "updated_by", "updated"]
    search_fields = ["id", "name"]
    updated = time_column("updated_at", "Updated")

    def get_fields(self, request: HttpRequest, obj: Any = None) -> list[Any]:
        # The id first, read-only or not; a saved tenant's change log after its fields.
        return [*TenantForm.Meta.fields, *(["changes"] if obj is not None else [])]

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        # The id is what runs, catalogs and preferences name: fixed once created.
        return ["id", "changes"] if obj is not None else []

    @admin.display(description="Changes")
    def changes(self, tenant: Tenant) -> SafeString:
        url = reverse("admin:tenants_tenantchange_changelist")
        count = TenantChange.objects.filter(tenant=tenant.id).count()
        return format_html(
            '<a href="{}?{}">{} recorded change{}</a>',
            url,
            urlencode({"tenant": tenant.id}),
            count,
            "" if count == 1 else "s",
        )

    def save_model(self, request: HttpRequest, obj: Tenant, form: Any, change: bool) -> None:
        """Through the services: recorded, and seen by every process within a second."""
        data = form.cleaned_data
        saved, _ = tenant_put(
            tenant_id=obj.id,
            fields={
                "name": data["name"],
                "properties": data.get("properties") or {},
                "default_locale": data.get("default_locale", ""),
                "layout": data.get("layout", ""),
                "preferences": data.get("preferences") or {},
            },
            actor=actor_of(request),
        )
        obj.updated_at, obj.created_at = saved.updated_at, saved.created_at
        obj._state.adding = False

    def delete_model(self, request: HttpRequest, obj: Tenant) -> None:
        tenant_delete(tenant_id=obj.id, actor=actor_of(request))

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[Tenant]) -> None:
        for tenant in queryset:
            tenant_delete(tenant_id=tenant.id, actor=actor_of(request))


@admin.register(TenantChange)
class TenantChangeAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    """The change log is append-only: shown, never edited."""

    list_display = ["tenant", "change", "created_by", "created"]
    list_filter = ["change"]
    search_fields = ["tenant"]
    fields = readonly_fields = ("tenant", "change", "created_by", "created")
    created = time_column("created_at", "When", ordering="id")

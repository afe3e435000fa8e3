"""Translation catalogs in the admin (docs/translations.md): list them, edit one as JSON, follow
its version history with a diff between any two versions. Every save and delete goes through
content/services.py, so each writes its version; the form refuses what the API refuses
(content/validation.py), each problem named by its path."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from django import forms
from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest

from common.actors import actor_of
from common.admin import StorableJSONField, json_field, time_column
from content import pieces_admin  # noqa: F401 (layouts and partials: registers their pages)
from content.history import catalog_diff
from content.models import TranslationCatalog, TranslationCatalogVersion
from content.services import catalog_delete, catalog_put
from content.validation import catalog_problems, flattened
from content.versions_admin import VersionHistoryAdmin, VersionListAdmin
from tenants.selectors import tenant_exists
from workflows.locales import LocaleInvalid, locale_canonical


class MessagesField(StorableJSONField):
    """The catalog's messages as indented JSON in a textarea."""

    def prepare_value(self, value: Any) -> Any:
        if isinstance(value, dict):
            return json.dumps(value, indent=2, ensure_ascii=False)
        return super().prepare_value(value)


class CatalogForm(forms.ModelForm):
    messages = MessagesField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 24, "cols": 100, "spellcheck": "false"}),
        help_text='Nested keys; each leaf a Liquid string or a plural object ({"one": …, '
        '"other": …}; "other" required). Templates name a message by its dotted key.',
    )

    class Meta:
        model = TranslationCatalog
        fields = ("locale", "tenant", "messages")
        help_texts = {
            "locale": "A BCP 47 tag: fr, fr-CA, pt-BR (kept as pt-BR however typed).",
            "tenant": "Empty: the shared catalog. A tenant's id: that tenant's own, consulted "
            "before the shared one for its runs.",
        }

    def clean_tenant(self) -> str:
        tenant = self.cleaned_data.get("tenant") or ""
        if tenant and not tenant_exists(tenant):
            raise forms.ValidationError(f"tenant {tenant!r} does not exist")
        return str(tenant)

    def clean_locale(self) -> str:
        try:
            return locale_canonical(self.cleaned_data["locale"])
        except LocaleInvalid as exc:
            raise forms.ValidationError(str(exc)) from exc

    def clean_messages(self) -> Any:
        messages = self.cleaned_data.get("messages")
        if problems := catalog_problems(messages):
            raise forms.ValidationError(
                [f"{where}: {' '.join(found)}" for where, found in problems.items()]
            )
        return messages


@admin.register(TranslationCatalog)
class TranslationCatalogAdmin(VersionHistoryAdmin):
    form = CatalogForm
    fields = CatalogForm.Meta.fields  # the locale and tenant first, read-only or not
    list_display = ["locale", "tenant", "keys", "version", "updated_by", "updated"]
    list_filter = ["tenant"]
    search_fields = ["locale", "tenant"]
    updated = time_column("updated_at", "Updated")
    version_model = TranslationCatalogVersion
    history_differ = staticmethod(catalog_diff)
    history_heading = "Messages"

    @admin.display(description="Messages")
    def keys(self, obj: TranslationCatalog) -> int:
        return len(flattened(obj.messages))

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        # The locale is what the catalog is: fixed once created (as in the API's path).
        return ["locale", "tenant"] if obj is not None else []

    # A catalog is its locale's, and a tenant's own catalog of it is named by `?tenant=`.
    def history_key(self, obj: TranslationCatalog) -> str:
        return obj.locale

    def history_params(self, obj: TranslationCatalog) -> dict[str, str]:
        return {"tenant": obj.tenant} if obj.tenant else {}

    def history_versions(
        self, key: str, params: Mapping[str, str]
    ) -> QuerySet[TranslationCatalogVersion]:
        return TranslationCatalogVersion.objects.filter(locale=key, tenant=params.get("tenant", ""))

    def history_row(self, key: str, params: Mapping[str, str]) -> TranslationCatalog | None:
        return TranslationCatalog.objects.filter(
            locale=key, tenant=params.get("tenant", "")
        ).first()

    def save_model(
        self, request: HttpRequest, obj: TranslationCatalog, form: Any, change: bool
    ) -> None:
        """Through the services: version N+1, written with the catalog."""
        saved, _ = catalog_put(
            locale=obj.locale,
            tenant=obj.tenant,
            messages=form.cleaned_data["messages"],
            actor=actor_of(request),
        )
        obj.pk, obj.version, obj.updated_at = saved.pk, saved.version, saved.updated_at
        obj._state.adding = False

    def delete_model(self, request: HttpRequest, obj: TranslationCatalog) -> None:
        catalog_delete(locale=obj.locale, tenant=obj.tenant, actor=actor_of(request))

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[TranslationCatalog]) -> None:
        for catalog in queryset:
            catalog_delete(locale=catalog.locale, tenant=catalog.tenant, actor=actor_of(request))


@admin.register(TranslationCatalogVersion)
class TranslationCatalogVersionAdmin(VersionListAdmin):
    list_display = ["locale", "tenant", "number", "author", "created", "changes"]
    list_filter = ["locale", "tenant"]
    fields = readonly_fields = ("locale", "tenant", "number", "author", "created", "messages_json")
    messages_json = json_field("messages", "Messages")

    def history_link(
        self, version: TranslationCatalogVersion
    ) -> tuple[type[TranslationCatalog], str, dict[str, str]]:
        # A tenant's own catalog's versions; the shared one's link names none.
        return TranslationCatalog, version.locale, {"tenant": version.tenant}

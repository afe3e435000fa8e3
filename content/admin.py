"""Translation catalogs in the admin (docs/translations.md): list them, edit one as JSON, follow
its version history with a diff between any two versions. Every save and delete goes through
content/services.py, so each writes its version; the form refuses what the API refuses
(content/validation.py), each problem named by its path."""

from __future__ import annotations

import json
from typing import Any

from django import forms
from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import path, reverse
from django.utils.html import format_html

from common.actors import actor_of
from common.admin import ReadOnlyAdminMixin, StorableJSONField, json_field, time_column
from content.history import catalog_diff
from content.models import TranslationCatalog, TranslationCatalogVersion
from content.services import catalog_delete, catalog_put
from content.validation import catalog_problems, flattened
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
        fields = ("locale", "messages")
        help_texts = {"locale": "A BCP 47 tag: fr, fr-CA, pt-BR (kept as pt-BR however typed)."}

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
class TranslationCatalogAdmin(admin.ModelAdmin):
    form = CatalogForm
    list_display = ["locale", "keys", "version", "updated_by", "updated"]
    search_fields = ["locale"]
    change_form_template = "admin/content/translationcatalog/change_form.html"
    updated = time_column("updated_at", "Updated")

    @admin.display(description="Messages")
    def keys(self, obj: TranslationCatalog) -> int:
        return len(flattened(obj.messages))

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        # The locale is what the catalog is: fixed once created (as in the API's path).
        return ["locale"] if obj is not None else []

    def get_urls(self) -> list[Any]:
        diff = self.admin_site.admin_view(self.diff_view)
        return [
            path("versions/<str:locale>/diff/", diff, name="content_translationcatalog_diff"),
            *super().get_urls(),
        ]

    def render_change_form(
        self,
        request: HttpRequest,
        context: dict[str, Any],
        add: bool = False,
        change: bool = False,
        form_url: str = "",
        obj: TranslationCatalog | None = None,
    ) -> Any:
        if obj is not None:
            context["versions"] = TranslationCatalogVersion.objects.filter(locale=obj.locale)
        return super().render_change_form(request, context, add, change, form_url, obj)

    def save_model(
        self, request: HttpRequest, obj: TranslationCatalog, form: Any, change: bool
    ) -> None:
        """Through the services: version N+1, written with the catalog."""
        saved, _ = catalog_put(
            locale=obj.locale, messages=form.cleaned_data["messages"], actor=actor_of(request)
        )
        obj.pk, obj.version, obj.updated_at = saved.pk, saved.version, saved.updated_at
        obj._state.adding = False

    def delete_model(self, request: HttpRequest, obj: TranslationCatalog) -> None:
        catalog_delete(locale=obj.locale, actor=actor_of(request))

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[TranslationCatalog]) -> None:
        for catalog in queryset:
            catalog_delete(locale=catalog.locale, actor=actor_of(request))

    def diff_view(self, request: HttpRequest, locale: str) -> HttpResponse:
        """Two versions of `locale`'s catalog: ?a=<number>&b=<number> (default: the one before
        the latest, and the latest). A deleted catalog's history stays comparable."""
        if not self.has_view_permission(request):
            raise PermissionDenied
        versions = {v.number: v for v in TranslationCatalogVersion.objects.filter(locale=locale)}
        if not versions:
            raise Http404("no such catalog")
        try:
            new = int(request.GET.get("b") or max(versions))
            old = int(request.GET.get("a") or max(new - 1, 1))
        except ValueError as exc:
            raise Http404("versions are numbers") from exc
        if old not in versions or new not in versions:
            raise Http404("no such version")
        old, new = min(old, new), max(old, new)
        context = {
            **self.admin_site.each_context(request),
            "opts": TranslationCatalog._meta,
            "title": f"{locale}: version {old} → version {new}",
            "catalog": TranslationCatalog.objects.filter(locale=locale).first(),
            "sides": [("From", versions[old]), ("To", versions[new])],
            "diff": catalog_diff(
                versions[old].messages,
                versions[new].messages,
                old_label=f"v{old}",
                new_label=f"v{new}",
            ),
        }
        return render(request, "admin/content/translationcatalog/diff.html", context)


@admin.register(TranslationCatalogVersion)
class TranslationCatalogVersionAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    """Versions are append-only: shown, never edited; a deleted catalog's stay."""

    list_display = ["locale", "number", "created_by", "created", "changes"]
    list_filter = ["locale"]
    fields = readonly_fields = ("locale", "number", "created_by", "created", "messages_json")
    created = time_column("created_at", "When", ordering="id")
    messages_json = json_field("messages", "Messages")

    @admin.display(description="Changes")
    def changes(self, obj: TranslationCatalogVersion) -> str:
        if obj.number == 1:
            return "—"
        url = reverse("admin:content_translationcatalog_diff", args=[obj.locale])
        return format_html(
            '<a href="{}?a={}&amp;b={}">from version {}</a>',
            url,
            obj.number - 1,
            obj.number,
            obj.number - 1,
        )

"""What the admin pages of catalogs, layouts and partials share (docs/translations.md,
docs/layouts.md): a change page that lists the row's versions (who, when) with any two picked
for comparison, the page comparing them, and the version lists' link to it. One set of views and
templates (`admin/content/versioned_change_form.html`, `admin/content/version_diff.html`); each
admin says only how its rows and their versions are found and compared."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, ClassVar
from urllib.parse import urlencode

from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.db import models
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import path, reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString

from common.admin import ReadOnlyAdminMixin, text_wrap, time_column
from content.models import Version
from workflows.history import DefinitionDiff

Differ = Callable[..., DefinitionDiff]


def history_url_name(model: type[models.Model]) -> str:
    """The admin URL name of `model`'s diff page: `content_layout_diff`."""
    return f"{model._meta.app_label}_{model._meta.model_name}_diff"


class VersionHistoryAdmin(admin.ModelAdmin):
    """A content row's pages with its version history. `version_model` holds its versions;
    `history_differ(old, new, old_label=, new_label=)` compares two of their snapshots, under
    the heading `history_heading`."""

    change_form_template = "admin/content/versioned_change_form.html"
    version_model: ClassVar[type[Version]]
    history_differ: ClassVar[Differ]
    history_heading: ClassVar[str]

    def history_key(self, obj: Any) -> str:
        """What the diff page's path names the row by."""
        return str(obj.key)

    def history_params(self, obj: Any) -> dict[str, str]:
        """The query parameters besides the key that name the row (a tenant's own catalog)."""
        return {}

    def history_versions(self, key: str, params: Mapping[str, str]) -> models.QuerySet[Any]:
        raise NotImplementedError

    def history_row(self, key: str, params: Mapping[str, str]) -> Any:
        raise NotImplementedError

    def get_urls(self) -> list[Any]:
        diff = self.admin_site.admin_view(self.diff_view)
        name = history_url_name(self.model)
        return [path("versions/<str:key>/diff/", diff, name=name), *super().get_urls()]

    def render_change_form(
        self,
        request: HttpRequest,
        context: dict[str, Any],
        add: bool = False,
        change: bool = False,
        form_url: str = "",
        obj: Any = None,
    ) -> Any:
        if obj is not None:
            key, params = self.history_key(obj), self.history_params(obj)
            context["versions"] = self.history_versions(key, params)
            context["version_opts"] = self.version_model._meta
            context["diff_url"] = reverse(f"admin:{history_url_name(self.model)}", args=[key])
            context["diff_params"] = params
        return super().render_change_form(request, context, add, change, form_url, obj)

    def diff_view(self, request: HttpRequest, key: str) -> HttpResponse:
        """Two versions of the row: ?a=<number>&b=<number> (default: the one before the latest,
        and the latest). A deleted row's history stays comparable."""
        if not self.has_view_permission(request):
            raise PermissionDenied
        params = request.GET
        versions = {v.number: v for v in self.history_versions(key, params)}
        if not versions:
            raise Http404(f"no such {self.model._meta.verbose_name}")
        try:
            new = int(request.GET.get("b") or max(versions))
            old = int(request.GET.get("a") or max(new - 1, 1))
        except ValueError as exc:
            raise Http404("versions are numbers") from exc
        if old not in versions or new not in versions:
            raise Http404("no such version")
        old, new = min(old, new), max(old, new)
        before, after = versions[old], versions[new]
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "version_opts": self.version_model._meta,
            "title": f"{key}: version {old} → version {new}",
            "original": self.history_row(key, params),
            "original_label": key,
            "sides": [("From", before), ("To", after)],
            "heading": self.history_heading,
            "diff": type(self).history_differ(
                getattr(before, before.snapshot_field),
                getattr(after, after.snapshot_field),
                old_label=f"v{old}",
                new_label=f"v{new}",
            ),
        }
        return render(request, "admin/content/version_diff.html", context)


class VersionListAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    """The versions of catalogs, layouts or partials: append-only, shown and never edited (a
    deleted row's stay), each with who saved it, when, and a link to what it changed.
    `history_link(version)` names the diff page: (the row's model, its key, query params)."""

    created = time_column("created_at", "When", ordering="id")

    @admin.display(description="By", ordering="created_by")
    def author(self, version: Version) -> SafeString:
        # An actor has no spaces (admin:someone.with.a.long.name): it wraps anywhere.
        return text_wrap(version.created_by or "—")

    def history_link(self, version: Any) -> tuple[type[models.Model], str, dict[str, str]]:
        raise NotImplementedError

    @admin.display(description="Changes")
    def changes(self, version: Any) -> str:
        """The link to the diff with the version before it."""
        if version.number == 1:
            return "—"
        row_model, key, params = self.history_link(version)
        url = reverse(f"admin:{history_url_name(row_model)}", args=[key])
        query = urlencode(
            {**{k: v for k, v in params.items() if v}, "a": version.number - 1, "b": version.number}
        )
        return format_html(
            '<a class="nf-nowrap" href="{}?{}">from version {}</a>', url, query, version.number - 1
        )

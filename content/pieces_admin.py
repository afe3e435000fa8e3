"""Layouts and partials in the admin (docs/layouts.md): list them, edit one, follow its version
history with a diff between any two versions, as catalogs do (content/admin.py). Every save and
delete goes through content/services.py, so each writes its version; the forms refuse what the
API refuses (content/validation.py), each problem on its field."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from django import forms
from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest

from common.actors import actor_of
from common.admin import json_field, time_column
from content.history import piece_diff
from content.models import ContentKind, ContentVersion, Layout, Partial, Piece
from content.services import content_delete, layout_put, partial_put
from content.validation import key_problem, layout_problems, partial_problems
from content.versions_admin import VersionHistoryAdmin, VersionListAdmin

_CODE = {"rows": 16, "cols": 100, "spellcheck": "false"}


class _PieceForm(forms.ModelForm):
    """The key checked as the API checks it; the template fields by content/validation.py."""

    problems: ClassVar[Any]

    def clean_key(self) -> str:
        key = str(self.cleaned_data["key"])
        if problems := key_problem(key):
            raise forms.ValidationError(problems["key"])
        return key

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        fields = {name: cleaned.get(name, "") for name in self._meta.fields if name != "key"}  # type: ignore[union-attr]
        for field, found in type(self).problems(fields).items():
            if field in self.fields:
                self.add_error(field, found)
        return cleaned


class LayoutForm(_PieceForm):
    problems = staticmethod(layout_problems)

    class Meta:
        model = Layout
        fields = ("key", "name", "html", "text")
        widgets = {"html": forms.Textarea(attrs=_CODE), "text": forms.Textarea(attrs=_CODE)}
        help_texts = {
            "key": "What a workflow names it by (`layout`, `default_layout`): lower-case letters, "
            "digits, _ and -.",
            "html": "Liquid HTML with {{ content }} exactly once, where the message goes; "
            'partials with {% render "footer" %}.',
            "text": "Optional: the text part, with {{ content }} exactly once; empty: the body "
            "alone.",
        }


class PartialForm(_PieceForm):
    problems = staticmethod(partial_problems)

    class Meta:
        model = Partial
        fields = ("key", "content")
        widgets = {"content": forms.Textarea(attrs=_CODE)}
        help_texts = {"key": 'What templates render it by: {% render "<key>" %}.'}


class _PieceAdmin(VersionHistoryAdmin):
    """What a layout's and a partial's pages share: the services, and their versions by kind."""

    kind: ClassVar[str]
    search_fields = ["key"]
    updated = time_column("updated_at", "Updated")
    version_model = ContentVersion
    history_differ = staticmethod(piece_diff)
    history_heading = "Content"

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        return ["key"] if obj is not None else []  # what it is: fixed once created

    def history_versions(self, key: str, params: Mapping[str, str]) -> QuerySet[ContentVersion]:
        return ContentVersion.objects.filter(kind=self.kind, key=key)

    def history_row(self, key: str, params: Mapping[str, str]) -> Any:
        return self.model._default_manager.filter(key=key).first()

    def _written(self, obj: Any, form: Any, actor: str) -> Any:
        raise NotImplementedError

    def save_model(self, request: HttpRequest, obj: Any, form: Any, change: bool) -> None:
        """Through the services: version N+1, written with the layout or partial."""
        saved = self._written(obj, form, actor_of(request))
        obj.pk, obj.version, obj.updated_at = saved.pk, saved.version, saved.updated_at
        obj._state.adding = False

    def delete_model(self, request: HttpRequest, obj: Any) -> None:
        content_delete(kind=self.kind, key=obj.key, actor=actor_of(request))

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> None:
        for piece in queryset:
            content_delete(kind=self.kind, key=piece.key, actor=actor_of(request))


@admin.register(Layout)
class LayoutAdmin(_PieceAdmin):
    kind = ContentKind.LAYOUT
    form = LayoutForm
    fields = LayoutForm.Meta.fields  # the key first, read-only or not
    list_display = ["key", "name", "version", "updated_by", "updated"]

    def _written(self, obj: Any, form: Any, actor: str) -> Any:
        data = form.cleaned_data
        saved, _ = layout_put(
            key=obj.key, name=data["name"], html=data["html"], text=data["text"], actor=actor
        )
        return saved


@admin.register(Partial)
class PartialAdmin(_PieceAdmin):
    kind = ContentKind.PARTIAL
    form = PartialForm
    fields = PartialForm.Meta.fields
    list_display = ["key", "version", "updated_by", "updated"]

    def _written(self, obj: Any, form: Any, actor: str) -> Any:
        saved, _ = partial_put(key=obj.key, content=form.cleaned_data["content"], actor=actor)
        return saved


@admin.register(ContentVersion)
class ContentVersionAdmin(VersionListAdmin):
    list_display = ["kind", "key", "number", "author", "created", "changes"]
    list_filter = ["kind"]
    search_fields = ["key"]
    fields = readonly_fields = ("kind", "key", "number", "author", "created", "content_json")
    content_json = json_field("content", "Content")

    def history_link(self, version: ContentVersion) -> tuple[type[Piece], str, dict[str, str]]:
        return (Layout if version.kind == ContentKind.LAYOUT else Partial), version.key, {}

"""The display helpers every app's admin uses (JSON, times, long texts, ids), the columns built
from them (`time_column`, `json_field`), the read-only mixin for audit rows, so that each app
looks the same on every page, and the form field of every JSON value an operator types
(`StorableJSONField`). The admin site itself (its
name and the order of its apps) is the project's wiring: notiflow/admin.py.

The styles for these helpers are in templates/admin/base_site.html.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime
from typing import Any

from django import forms
from django.contrib import admin
from django.http import HttpRequest
from django.utils import timezone
from django.utils.html import format_html
from django.utils.safestring import SafeString

from common.http import json_loads_storable

# JSON this long or shorter is shown open; longer JSON is folded and opens on a click.
JSON_OPEN_MAX_LINES = 40


def json_block(value: Any) -> SafeString:
    """`value` as indented JSON (keys in their stored order), escaped, in a <pre> that wraps long
    strings instead of cutting them, inside a <details>: open when short, folded when long."""
    text = json.dumps(value, indent=2, ensure_ascii=False, default=str)
    lines = text.count("\n") + 1
    return format_html(
        '<details class="json-block"{}><summary>JSON, {} line{}</summary><pre>{}</pre></details>',
        " open" if lines <= JSON_OPEN_MAX_LINES else "",
        lines,
        "" if lines == 1 else "s",
        text,
    )


def admin_time(value: datetime | None) -> str:
    """A time as the admin shows it in lists and run pages: to the second, in TIME_ZONE."""
    if value is None:
        return "—"
    return timezone.localtime(value).strftime("%Y-%m-%d %H:%M:%S")


def list_time(value: datetime | None) -> SafeString:
    """admin_time for a list column: a narrow column may put the time under the date, but never
    breaks either (it would at the date's hyphens)."""
    if value is None:
        return format_html("{}", admin_time(value))
    date, time = admin_time(value).split(" ")
    return format_html(
        '<span class="nf-nowrap">{}</span> <span class="nf-nowrap">{}</span>', date, time
    )


def text_cut(text: str, *, fill: bool = True) -> SafeString:
    """A long text for a list column, on one line and cut with an ellipsis; the whole text is in
    its tooltip. With `fill` the column takes the width the others leave (one such column per
    list: it is what keeps the list inside the page); otherwise it stops at 12em."""
    return format_html(
        '<span class="nf-cut {}" title="{}">{}</span>', "nf-fill" if fill else "nf-clip", text, text
    )


def text_wrap(text: str) -> SafeString:
    """A short text for a list column, shown whole: it wraps (anywhere, so a long token such as
    a worker's name cannot widen the column) rather than being cut."""
    return format_html('<span class="nf-wrap">{}</span>', text)


def id_short(value: Any) -> SafeString:
    """An id shown by its first 8 characters; the whole id is in the tooltip."""
    full = str(value)
    return format_html('<span class="nf-id" title="{}">{}</span>', full, full[:8])


# A display method of a ModelAdmin: (the admin, the row) -> what the page shows.
Display = Callable[[Any, Any], SafeString]


def time_column(field: str, description: str, *, ordering: str = "") -> Display:
    """A column (or read-only field) showing the row's time `field` as list_time, sorted by it, or
    by `ordering` where another column sorts the same and is indexed (an append-only table's id).
    Assign it in the class body: `occurred = time_column("occurred_at", "When")`."""

    @admin.display(description=description, ordering=ordering or field)
    def column(model_admin: Any, row: Any) -> SafeString:
        return list_time(getattr(row, field))

    return column


def json_field(field: str, description: str) -> Display:
    """A read-only field showing the row's JSON `field` as json_block."""

    @admin.display(description=description)
    def shown(model_admin: Any, row: Any) -> SafeString:
        return json_block(getattr(row, field))

    return shown


class ReadOnlyAdminMixin:
    """Audit rows are append-only: the admin shows them and nothing more."""

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class StorableJSONDecoder(json.JSONDecoder):
    """json.loads(cls=...) refusing what the API refuses (json_loads_storable: nesting too deep,
    NUL) as a JSONDecodeError, which Django's JSONField reads as invalid input."""

    def decode(self, s: str, *args: Any) -> Any:
        try:
            return json_loads_storable(s)
        except json.JSONDecodeError:
            raise
        except ValueError as exc:
            raise json.JSONDecodeError(str(exc), s, 0) from None


class StorableJSONField(forms.JSONField):
    """A JSON form field whose value can be stored: input nested past the API's depth or holding
    NUL is a form error saying so, not a RecursionError or the database's DataError (a 500)."""

    def __init__(self, **kwargs: Any) -> None:
        # A model's JSONField passes its own decoder (None: json's) to its form field.
        super().__init__(**{**kwargs, "decoder": StorableJSONDecoder})

    def to_python(self, value: Any) -> Any:
        try:
            return super().to_python(value)
        except forms.ValidationError:
            try:
                json_loads_storable(value)
            except ValueError as exc:
                raise forms.ValidationError(f"Not valid JSON: {exc}", code="invalid") from None
            raise

"""Recipients in the admin (docs/design/recipients.md, "Recipients"): a person's page shows, in one place,
their profile (edited with the API's field rules), preferences, topic subscriptions, and what
other apps know of them: runs (triggers), delivery events and suppressions (deliveries). Those
apps stand above `recipients` and register a panel each in recipients.hooks.RECIPIENT_PAGE_PANELS, as triggers
adds its statistics to a workflow's page. Deleting a person here is the API's erase.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.template.loader import render_to_string
from django.utils.safestring import SafeString

from common.admin import StorableJSONField, json_block, list_time, text_wrap
from recipients.hooks import RECIPIENT_PAGE_PANELS
from recipients.models import PROFILE_FIELDS, Recipient, TopicSubscription
from recipients.services import Profile, recipient_erase, recipients_upsert
from recipients.validation import (
    email_problem,
    key_problem,
    locale_problem,
    phone_problem,
    timezone_problem,
)
from workflows.quiet_hours import quiet_hours_problems

# How many rows a panel shows; its "all" link lists the rest.
PANEL_ROWS = 20


def recipient_panel(
    *,
    title: str,
    headers: Sequence[str],
    rows: Sequence[Sequence[Any]],
    empty: str,
    more_url: str = "",
) -> str:
    """A panel of the recipient's page: a titled table (cells are escaped unless safe), a line
    saying there is nothing, and a link to the whole list when `more_url` is given."""
    return render_to_string(
        "admin/recipients/recipient/_panel.html",
        {"title": title, "headers": headers, "rows": rows, "empty": empty, "more_url": more_url},
    )


_CHECKS: dict[str, Callable[[str], str]] = {
    "key": key_problem,
    "email": email_problem,
    "phone": phone_problem,
    "locale": locale_problem,
    "timezone": timezone_problem,
}


class RecipientForm(forms.ModelForm):
    """The profile, checked as the API checks it (recipients/validation.py)."""

    class Meta:
        model = Recipient
        fields = ["key", *PROFILE_FIELDS]
        labels = {"key": "Id"}
        field_classes = {
            "channels": StorableJSONField,
            "properties": StorableJSONField,
            "quiet_hours": StorableJSONField,
        }
        help_texts = {
            "quiet_hours": '{"start": "22:00", "end": "08:00", "days": ["mon", ...]} in their '
            "time zone (days optional); {} for none"
        }

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        for name, check in _CHECKS.items():
            value = cleaned.get(name)
            if isinstance(value, str) and (problem := check(value)):
                self.add_error(name, problem)
        for name in ("channels", "properties"):
            if name in cleaned and not isinstance(cleaned[name], dict):
                self.add_error(name, "must be a JSON object")
        if cleaned.get("quiet_hours") is None and "quiet_hours" in cleaned:
            cleaned["quiet_hours"] = {}  # an emptied box: none
        for field, problem in quiet_hours_problems(cleaned.get("quiet_hours")):
            self.add_error("quiet_hours", f"{field}: {problem}" if field else problem)
        return cleaned


@admin.register(Recipient)
class RecipientAdmin(admin.ModelAdmin):
    form = RecipientForm
    list_display = ["key", "email", "phone", "name_shown", "timezone", "updated"]
    search_fields = ["=key", "key", "email", "name", "phone"]
    readonly_fields = ["preferences_json", "subscriptions", "created_at", "updated_at"]
    fieldsets = [
        (None, {"fields": ["key", "name", "email", "phone", "locale", "timezone", "quiet_hours"]}),
        ("Data", {"fields": ["properties", "channels"]}),
        ("Preferences and topics", {"fields": ["preferences_json", "subscriptions"]}),
        ("History", {"fields": ["created_at", "updated_at"]}),
    ]
    change_form_template = "admin/recipients/recipient/change_form.html"
    actions = ["erase_selected"]

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        # The key is the client's user id, which runs name: fixed once created (as in the API).
        return [*self.readonly_fields, "key"] if obj is not None else list(self.readonly_fields)

    def render_change_form(self, request, context, add=False, change=False, form_url="", obj=None):
        if obj is not None:
            context["panels"] = [panel(obj) for panel in RECIPIENT_PAGE_PANELS]
        return super().render_change_form(request, context, add, change, form_url, obj)

    def save_model(self, request: HttpRequest, obj: Recipient, form: Any, change: bool) -> None:
        """Through the service, as PUT replaces a profile (preferences untouched)."""
        fields = {name: form.cleaned_data[name] for name in PROFILE_FIELDS}
        recipients_upsert([Profile(key=obj.key, fields=fields)], merge=False)

    def delete_model(self, request: HttpRequest, obj: Recipient) -> None:
        recipient_erase(key=obj.key)

    def get_deleted_objects(self, objs: Any, request: HttpRequest) -> Any:
        """Erasing takes the person's subscriptions along (recipient_erase): the read-only
        subscriptions admin (no delete permission there) does not stand in the way."""
        deleted, counts, perms_needed, protected = super().get_deleted_objects(objs, request)
        perms_needed.discard(TopicSubscription._meta.verbose_name)
        return deleted, counts, perms_needed, protected

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[Recipient]) -> None:
        for key in queryset.values_list("key", flat=True):
            recipient_erase(key=key)

    def get_actions(self, request: HttpRequest) -> dict[str, Any]:
        actions = super().get_actions(request)
        actions.pop("delete_selected", None)  # "erase" says what it means here
        return actions

    @admin.action(description="Erase (profile, preferences, subscriptions)", permissions=["delete"])
    def erase_selected(self, request: HttpRequest, queryset: QuerySet[Recipient]) -> None:
        keys = list(queryset.values_list("key", flat=True))
        for key in keys:
            recipient_erase(key=key)
        message = f"{len(keys)} recipient(s) erased; their runs stay under retention."
        self.message_user(request, message, messages.SUCCESS)

    @admin.display(description="Name", ordering="name")
    def name_shown(self, row: Recipient) -> SafeString:
        return text_wrap(row.name)

    @admin.display(description="Updated", ordering="updated_at")
    def updated(self, row: Recipient) -> str:
        return list_time(row.updated_at)

    @admin.display(description="Preferences")
    def preferences_json(self, row: Recipient) -> SafeString:
        return json_block(row.preferences)

    @admin.display(description="Topics")
    def subscriptions(self, row: Recipient) -> str:
        keys = list(
            TopicSubscription.objects.filter(recipient=row)
            .order_by("topic_id")
            .values_list("topic_id", flat=True)
        )
        return ", ".join(keys) or "—"

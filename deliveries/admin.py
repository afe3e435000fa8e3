"""Deliveries in the admin: what providers reported (read-only, as they wrote it) and the
suppression list, which operators add to and remove from (docs/design/deliveries.md, "Deliveries")."""

from __future__ import annotations

from functools import partial
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.db.models import Q, QuerySet
from django.http import HttpRequest
from django.urls import path, reverse
from django.utils.html import format_html

from common.admin import (
    ReadOnlyAdminMixin,
    json_field,
    list_time,
    text_cut,
    text_wrap,
    time_column,
)
from deliveries.models import (
    SHOWN_FIELDS,
    DeliveryEvent,
    Suppression,
    SuppressionScope,
    UnmatchedReport,
)
from deliveries.suppression import recipient_checked, recipient_normalise
from deliveries.why_admin import recipient_why_view
from recipients.admin import PANEL_ROWS, recipient_panel
from recipients.models import Recipient
from workflows.channels import SUPPRESS_PERSON, channel_spec, suppressible_channels


class ProviderReportAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    """A provider's reports as they were stored (append-only), found by recipient, trigger or the
    provider's message id, with the report itself in full."""

    search_fields = ["recipient", "=trigger_id", "=provider_message_id"]
    raw_json = json_field("raw", "Provider's report")


@admin.register(DeliveryEvent)
class DeliveryEventAdmin(ProviderReportAdmin):
    list_display = ["occurred", "event", "provider", "recipient", "trigger_id", "node_id"]
    list_filter = ["event", "provider", "channel"]
    fields = readonly_fields = ("trigger_id", *SHOWN_FIELDS, "raw_json")
    occurred = time_column("occurred_at", "When")

    def get_urls(self) -> list[Any]:
        """And the recipient page's "Why?" for a chosen workflow (deliveries/why_admin.py)."""
        view = self.admin_site.admin_view(partial(recipient_why_view, self))
        why = path("why/<str:recipient_id>/", view, name="deliveries_recipient_why")
        return [why, *super().get_urls()]


@admin.register(UnmatchedReport)
class UnmatchedReportAdmin(ProviderReportAdmin):
    """Reports that named a send but not its provider or recipient (docs/security/providers.md, "Provider
    reports"): what was tried, for the operator to look into."""

    list_display = ["received", "reporter", "event", "recipient", "reason", "trigger_id"]
    list_filter = ["reporter", "event", "channel"]
    fields = readonly_fields = (
        "trigger_id",
        "node_id",
        "channel",
        "reporter",
        "provider",
        "event",
        "recipient",
        "provider_message_id",
        "reason",
        "received_at",
        "raw_json",
    )
    received = time_column("received_at", "Received")


class SuppressionForm(forms.ModelForm):
    class Meta:
        model = Suppression
        fields = ["channel", "recipient", "scope", "reason"]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # The channels the list may hold (workflows.channels), asked when the form is made.
        choices = [(channel, channel) for channel in suppressible_channels()]
        self.fields["channel"].widget = forms.Select(choices=choices)

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        if cleaned.get("channel") and cleaned.get("recipient"):
            try:
                cleaned["recipient"] = recipient_checked(
                    channel=cleaned["channel"], recipient=cleaned["recipient"]
                )
            except ValueError as exc:
                self.add_error("recipient", str(exc))
        return cleaned


# What a scope keeps from the recipient, in the list and its filter: the model's labels ("All",
# "Marketing") made the filter read "All / All / Marketing".
SCOPE_LABELS = {
    SuppressionScope.ALL: "every message",
    SuppressionScope.MARKETING: "marketing only",
}


class ScopeFilter(admin.SimpleListFilter):
    title = "scope"
    parameter_name = "scope"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [(str(scope), label) for scope, label in SCOPE_LABELS.items()]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        return queryset.filter(scope=self.value()) if self.value() else queryset


# The suppression list: operators add and remove recipients (the engine checks it before a send).
@admin.register(Suppression)
class SuppressionAdmin(admin.ModelAdmin):
    form = SuppressionForm
    # Five columns that fit beside the filters at 1280 px: the recipient whole with its channel
    # under it, the source cut at 12em (whole in its tooltip), so "Added" is never pushed out.
    list_display = ["recipient_shown", "scope_shown", "reason", "source_cut", "added"]
    list_display_links = ["recipient_shown"]
    list_filter = ["channel", ScopeFilter, "reason"]
    search_fields = ["recipient"]
    actions = ["remove_selected"]

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        # An entry is added or removed, never edited: a changed recipient would be another entry.
        return ["channel", "recipient", "scope", "reason", "source"] if obj else []

    def save_model(self, request: HttpRequest, obj: Suppression, form: Any, change: bool) -> None:
        if not change:
            obj.source = f"admin:{request.user.get_username()}"
        super().save_model(request, obj, form, change)

    def get_actions(self, request: HttpRequest) -> dict[str, Any]:
        actions = super().get_actions(request)
        actions.pop("delete_selected", None)  # "remove" says what it means here
        return actions

    @admin.action(description="Remove from the suppression list", permissions=["delete"])
    def remove_selected(self, request: HttpRequest, queryset: QuerySet[Suppression]) -> None:
        removed, _ = queryset.delete()
        self.message_user(
            request, f"{removed} recipient(s) may be sent to again.", messages.SUCCESS
        )

    @admin.display(description="Recipient", ordering="recipient")
    def recipient_shown(self, row: Suppression) -> str:
        return format_html(
            '{}<span class="nf-detail">{}</span>', text_wrap(row.recipient), row.channel
        )

    @admin.display(description="Scope", ordering="scope")
    def scope_shown(self, row: Suppression) -> str:
        return SCOPE_LABELS.get(row.scope, row.scope)  # type: ignore[call-overload]

    @admin.display(description="Source", ordering="source")
    def source_cut(self, row: Suppression) -> str:
        return text_cut(row.source, fill=False)

    added = time_column("created_at", "Added")


# --- a recipient's page: what the providers reported to their addresses, and their suppressions


def _addresses(recipient: Recipient) -> list[tuple[str, str]]:
    """The person's (channel, address) pairs, as suppressions and reports store them, on every
    channel the list may hold (workflows.channels): an address from its profile field, or the
    person's key where the channel suppresses a person (push)."""
    pairs = [
        (spec.name, recipient.key)
        if spec.suppression == SUPPRESS_PERSON
        else (spec.name, str(getattr(recipient, spec.profile_field, "") or ""))
        for spec in map(channel_spec, suppressible_channels())
    ]
    return [(channel, recipient_normalise(channel, a)) for channel, a in pairs if a]


def recipient_deliveries_panel(recipient: Recipient) -> str:
    """The latest delivery events reported for the person's addresses, newest first."""
    addresses = [address for _, address in _addresses(recipient)]
    events = DeliveryEvent.objects.filter(recipient__in=addresses).order_by("-occurred_at")
    rows = [
        (list_time(e.occurred_at), e.event, e.channel, e.recipient, e.provider, e.node_id)
        for e in events[:PANEL_ROWS]
    ]
    return recipient_panel(
        title="Delivery events",
        headers=("When", "Event", "Channel", "Address", "Provider", "Node"),
        rows=rows,
        empty="No provider reported about this recipient's addresses.",
    )


def recipient_suppressions_panel(recipient: Recipient) -> str:
    """The suppression entries of the person's addresses, each a link to its page."""
    matches = Q(pk__in=[])
    for channel, address in _addresses(recipient):
        matches |= Q(channel=channel, recipient=address)
    rows = [
        (
            format_html(
                '<a href="{}">{}</a>',
                reverse("admin:deliveries_suppression_change", args=[s.pk]),
                s.recipient,
            ),
            s.channel,
            SCOPE_LABELS.get(s.scope, s.scope),  # type: ignore[call-overload]
            s.reason,
            list_time(s.created_at),
        )
        for s in Suppression.objects.filter(matches).order_by("-created_at")[:PANEL_ROWS]
    ]
    return recipient_panel(
        title="Suppressions",
        headers=("Address", "Channel", "Scope", "Reason", "Added"),
        rows=rows,
        empty="None of this recipient's addresses is suppressed.",
    )

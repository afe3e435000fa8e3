"""Event waits in the admin (docs/design/waits.md, "Waiting for events"): the waiting runs, what each
waits for and until when; the events posted, and a form to post one as an operator (recorded
with who did it). Cancelling a waiting run is the run's own Cancel."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.db import transaction
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString

from common.actors import actor_of
from common.admin import ReadOnlyAdminMixin, StorableJSONField, json_field, time_column
from waits.messages import RESERVED_NAME_PROBLEM, event_name_reserved
from waits.models import EventWait, ReceivedEvent
from waits.services import CONFLICT, event_data_hash, event_receive


class OpenFilter(admin.SimpleListFilter):
    title = "state"
    parameter_name = "state"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [("open", "waiting"), ("received", "received"), ("timed_out", "timed out")]

    def queryset(self, request: HttpRequest, queryset: Any) -> Any:
        if self.value() == "open":
            return queryset.filter(resolved_at__isnull=True)
        if (state := self.value()) in ("received", "timed_out"):
            return queryset.filter(**{str(state): True})
        return queryset


@admin.register(EventWait)
class EventWaitAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = ("run", "node_id", "name", "match_shown", "until", "state")
    list_filter = (OpenFilter, "name")
    search_fields = ("=trigger_id", "=name")
    ordering = ("deadline",)
    show_full_result_count = False
    until = time_column("deadline", "until", ordering="deadline")
    match_shown = json_field("match", "match")
    event_shown = json_field("event", "event")
    fields = (
        "run",
        "node_id",
        "name",
        "match_shown",
        "deadline",
        "created_at",
        "resolved_at",
        "received",
        "timed_out",
        "resolved_by",
        "event_shown",
    )
    readonly_fields = fields

    @admin.display(description="run")
    def run(self, wait: EventWait) -> SafeString:
        url = reverse("admin:triggers_triggerinstance_change", args=[wait.trigger_id])
        return format_html('<a href="{}">{}</a>', url, str(wait.trigger_id)[:8])

    @admin.display(description="state")
    def state(self, wait: EventWait) -> str:
        if wait.resolved_at is None:
            return "waiting"
        return "received" if wait.received else "timed out"

    def changelist_view(self, request: HttpRequest, extra_context: Any = None) -> Any:
        if "state" not in request.GET and not request.GET.get("q"):
            query = request.GET.copy()
            query["state"] = "open"
            request.GET = query  # type: ignore[assignment]  # the waiting runs first
        return super().changelist_view(request, extra_context)


class EventSendForm(forms.ModelForm):
    data = StorableJSONField(  # type: ignore[assignment]  # a form field, not BaseForm.data
        required=False, initial=dict, help_text="a JSON object"
    )

    class Meta:
        model = ReceivedEvent
        fields = ("name", "event_id", "data")

    def clean_name(self) -> str:
        name = str(self.cleaned_data.get("name") or "")
        if event_name_reserved(name):
            raise forms.ValidationError(RESERVED_NAME_PROBLEM.format(name=name))
        return name

    def clean_data(self) -> dict[str, Any]:
        data = self.cleaned_data.get("data") or {}
        if not isinstance(data, dict):
            raise forms.ValidationError("the data must be a JSON object")
        return data

    def validate_unique(self) -> None:
        """A repeated id is the service's to decide (the same again, or a conflict)."""


@admin.register(ReceivedEvent)
class ReceivedEventAdmin(admin.ModelAdmin):
    """Posted events; *Add* posts one as the operator (POST /api/events/ without a key limit)."""

    form = EventSendForm
    list_display = ("event_id", "name", "poster", "received")
    list_filter = ("name",)
    search_fields = ("=event_id", "=name")
    ordering = ("-created_at",)
    show_full_result_count = False
    received = time_column("created_at", "received", ordering="created_at")
    data_shown = json_field("data", "data")

    def get_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        if obj is None:
            return ("name", "event_id", "data")
        return self.shown

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        return () if obj is None else self.shown

    shown = ("event_id", "name", "data_shown", "poster", "reach", "created_at")

    @admin.display(description="posted by", ordering="created_by")
    def poster(self, event: ReceivedEvent) -> SafeString | str:
        """Who posted it; an API key's name links to the key (by the id recorded with it)."""
        if event.api_key_id is None:
            return event.created_by
        url = reverse("admin:triggers_apikey_change", args=[event.api_key_id])
        return format_html('<a href="{}">{}</a>', url, event.created_by)

    @admin.display(description="resumes runs of")
    def reach(self, event: ReceivedEvent) -> str:
        """The workflows its poster's key was limited to when it posted it."""
        return ", ".join(event.workflows) if event.workflows else "any workflow"

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return obj is None and super().has_change_permission(request, obj)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def save_model(self, request: HttpRequest, obj: ReceivedEvent, form: Any, change: bool) -> None:
        """Store the event in the admin's transaction (recorded with who posted it), then, once
        committed, resume its runs as POST /api/events/ does (commit, then look)."""
        actor = actor_of(request)
        existing = ReceivedEvent.objects.filter(event_id=obj.event_id).first()
        if existing is None:
            obj.created_by = actor
            obj.data_hash = event_data_hash(obj.name, obj.data)
            obj.save()
        else:
            obj.pk = existing.pk

        def resume() -> None:
            outcome = event_receive(
                name=obj.name, event_id=obj.event_id, data=obj.data, actor=actor
            )
            if outcome.outcome == CONFLICT:
                messages.error(request, f"event {obj.event_id!r} was posted before with other data")
            else:
                messages.info(request, f"event {obj.event_id!r}: {outcome.resumed} run(s) resumed")

        transaction.on_commit(resume)

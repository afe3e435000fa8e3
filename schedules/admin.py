"""Schedules in the admin (docs/guide/schedules.md): each schedule with its rule, audience, next
occurrences and what its occurrences did; pause and resume as actions (through schedule_put, as
the API's `active` does). They are written over the API (PUT /api/schedules/<id>/): the one
validator that names each bad field."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from common.admin import ReadOnlyAdminMixin, json_block, list_time, text_wrap, time_column
from common.durations import duration_text
from schedules.models import RECIPIENT_ZONE, Schedule, ScheduleOccurrence
from schedules.selectors import schedule_preview
from schedules.services import ScheduleRejected, ScheduleRequest, db_now, schedule_put

# How many of a schedule's latest occurrence records its page shows.
OCCURRENCES_SHOWN = 20


def schedule_request(schedule: Schedule, **changes: Any) -> ScheduleRequest:
    """The PUT that would store `schedule` as it is, with `changes`."""
    fields: dict[str, Any] = {
        "id": schedule.pk,
        "workflow": schedule.workflow_key,
        "repeat": schedule.repeat,
        "recipients": schedule.recipients if not schedule.topic_key else None,
        "topic": schedule.topic_key or None,
        "timezone": schedule.timezone,
        "payload": schedule.payload,
        "starts_at": schedule.starts_at,
        "ends_at": schedule.ends_at or None,
        "tenant": schedule.tenant,
        "active": schedule.active,
        "catch_up": f"{int(schedule.catch_up_seconds)}s",
    }
    return ScheduleRequest(**{**fields, **changes})


@admin.register(Schedule)
class ScheduleAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    # The columns fit beside the filters at 1280 px with the zone under the audience, the runs
    # made under the next time, and the rule and the times wrapping between their parts.
    list_display = ["id", "workflow", "audience_and_zone", "rule", "active", "next_and_runs"]
    list_filter = ["active", "timezone"]
    search_fields = ["=id", "workflow_key", "topic_key"]
    actions = ["pause", "resume"]
    fields = readonly_fields = (
        "id",
        "workflow",
        "audience",
        "rule",
        "zone",
        "starts_at",
        "ends_at",
        "active",
        "catch_up",
        "tenant_link",
        "payload_json",
        "next_occurrences",
        "next_and_runs",
        "last_error",
        "occurrence_list",
        "charged_to",
        "created_by",
        "created",
        "updated",
    )
    created = time_column("created_at", "Created")
    updated = time_column("updated_at", "Updated")

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return bool(request.user.is_superuser)

    @admin.display(description="Workflow", ordering="workflow_key")
    def workflow(self, schedule: Schedule) -> SafeString:
        # The list's workflows by key (no query a row), which finds the one workflow.
        url = reverse("admin:workflows_workflow_changelist")
        return format_html(
            '<a href="{}?{}">{}</a>',
            url,
            urlencode({"key": schedule.workflow_key}),
            text_wrap(schedule.workflow_key),
        )

    @admin.display(description="Repeat", ordering="repeat")
    def rule(self, schedule: Schedule) -> SafeString:
        # An RRULE has no spaces: it wraps between its parts, not past the list's edge.
        parts = schedule.repeat.split(";")
        return format_html_join(
            format_html("{}<wbr>", ";"),
            '<span class="nf-nowrap">{}</span>',
            ((part,) for part in parts),
        )

    @admin.display(description="Time zone", ordering="timezone")
    def zone(self, schedule: Schedule) -> str:
        return "each recipient's own" if schedule.timezone == RECIPIENT_ZONE else schedule.timezone

    @admin.display(description="Catch-up window")
    def catch_up(self, schedule: Schedule) -> str:
        return duration_text(schedule.catch_up_seconds)

    @admin.display(description="Tenant")
    def tenant_link(self, schedule: Schedule) -> str:
        if not schedule.tenant:
            return "—"
        url = reverse("admin:tenants_tenant_change", args=[schedule.tenant])
        return format_html('<a href="{}">{}</a>', url, schedule.tenant)

    @admin.display(description="Audience")
    def audience_and_zone(self, schedule: Schedule) -> SafeString:
        return format_html(
            '{}<span class="nf-detail">{}</span>', self.audience(schedule), self.zone(schedule)
        )

    @admin.display(description="Next (local)", ordering="next_local")
    def next_and_runs(self, schedule: Schedule) -> SafeString:
        runs = schedule.runs_created
        return format_html(
            '{}<span class="nf-detail">{} run{} made</span>',
            _times([schedule.next_local]) if schedule.next_local else "—",
            runs,
            "" if runs == 1 else "s",
        )

    @admin.display(description="Audience")
    def audience(self, schedule: Schedule) -> str:
        if schedule.topic_key:
            return f"topic {schedule.topic_key}"
        count = len(schedule.recipients or [])
        return f"{count} recipient{'s' if count != 1 else ''}"

    @admin.display(description="Payload")
    def payload_json(self, schedule: Schedule) -> SafeString:
        return json_block(schedule.payload)

    @admin.display(description="Next occurrences")
    def next_occurrences(self, schedule: Schedule) -> SafeString:
        preview = schedule_preview(schedule, now=db_now(), with_recipients=True)
        rows = [("local (the rule's wall clock)", preview["local"])]
        if preview["utc"] is not None:
            rows.append(("UTC", preview["utc"]))
        for person in preview["recipients"] or []:
            rows.append((f"{person['recipient']} ({person['timezone']})", person["local"]))
        return format_html(
            '<table class="nf-occurrences">{}</table>',
            format_html_join(
                "", "<tr><th>{}</th><td>{}</td></tr>", ((w, _times(t)) for w, t in rows)
            ),
        )

    @admin.display(description=f"Latest occurrences (at most {OCCURRENCES_SHOWN})")
    def occurrence_list(self, schedule: Schedule) -> SafeString:
        records = schedule.occurrences.order_by("-occurs_at", "zone")[:OCCURRENCES_SHOWN]
        rows = (
            (list_time(r.occurs_at), r.zone, r.status, r.runs, r.charged, r.reason) for r in records
        )
        return format_html(
            "<table><tr><th>at</th><th>zone</th><th>status</th><th>runs</th><th>charged</th>"
            "<th>why</th></tr>{}</table>",
            format_html_join(
                "",
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                rows,
            ),
        )

    @admin.display(description="Charged to")
    def charged_to(self, schedule: Schedule) -> str:
        """The key whose trigger rate a topic's occurrences are charged to
        (schedules/admission.py)."""
        if not schedule.topic_key:
            return "nothing: a list of recipients is not charged"
        if schedule.api_key is None:
            return "no key (not stored by one, or deleted since): not charged"
        return f"the trigger rate of API key {schedule.api_key.name}"

    @admin.action(description="Pause the selected schedules (from their next occurrence)")
    def pause(self, request: HttpRequest, queryset: QuerySet[Schedule]) -> None:
        self._set_active(request, queryset, active=False)

    @admin.action(description="Resume the selected schedules (from their next occurrence)")
    def resume(self, request: HttpRequest, queryset: QuerySet[Schedule]) -> None:
        self._set_active(request, queryset, active=True)

    def _set_active(
        self, request: HttpRequest, queryset: QuerySet[Schedule], *, active: bool
    ) -> None:
        changed = 0
        for schedule in queryset:
            if schedule.active == active:
                continue
            try:
                schedule_put(
                    schedule_request(schedule, active=active), actor=f"admin:{request.user}"
                )
            except ScheduleRejected as exc:
                self.message_user(
                    request, f"{schedule.pk}: {exc.field}: {exc.message}", messages.ERROR
                )
                continue
            changed += 1
        verb = "resumed" if active else "paused"
        self.message_user(request, f"{changed} schedule(s) {verb}.", messages.SUCCESS)


def _times(texts: list[str]) -> SafeString:
    """ISO local times as `2036-01-02 09:30 +01:00`, each whole on its line's end (a wall of
    `2036-01-02T09:30:00+01:00` broke inside dates); "none" without any."""
    if not texts:
        return format_html("{}", "none")
    shown = ((text[:10], text[11:16], f" {text[19:]}" if len(text) > 19 else "") for text in texts)
    return format_html_join(
        ", ", '<span class="nf-nowrap">{}</span> <span class="nf-nowrap">{}{}</span>', shown
    )


@admin.register(ScheduleOccurrence)
class ScheduleOccurrenceAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = ["schedule", "occurs", "local", "zone", "status", "runs", "charged"]
    list_filter = ["status"]
    search_fields = ["=schedule__id", "zone"]
    fields = readonly_fields = (
        "schedule",
        "local",
        "zone",
        "occurs_at",
        "status",
        "runs",
        "charged",
        "reason",
        "recorded_at",
    )

    @admin.display(description="At (UTC)", ordering="occurs_at")
    def occurs(self, record: ScheduleOccurrence) -> SafeString:
        return list_time(record.occurs_at)

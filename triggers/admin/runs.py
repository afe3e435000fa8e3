"""The trigger list and page: filters, a timeline of events and step logs, and the operator's
actions (cancel, retry now, requeue stuck, soft delete, send test), each through triggers.state
or services."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils import timezone
from django.utils.html import format_html
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_POST

from common.actors import actor_of
from common.admin import ReadOnlyAdminMixin, admin_time, id_short, json_block, list_time, text_cut
from recipients.models import Recipient
from triggers.admin.bulk_actions import BULK_ACTIONS
from triggers.explain import run_story
from triggers.models import TriggerInstance, TriggerStatus
from triggers.selectors import trigger_stuck_list, trigger_timeline
from triggers.services import TriggerRejected, trigger_create
from triggers.state import (
    MAX_DELETE_REASON_LENGTH,
    TriggerNotFound,
    TriggerStateConflict,
    trigger_cancel,
    trigger_delete,
    trigger_requeue,
    trigger_retry_now,
)
from workflows.admin.forms import SamplePayloadForm
from workflows.admin.views import remember_payload
from workflows.selectors import workflow_list

# An enqueued trigger due this long ago and still unclaimed counts as stuck (the sweeper re-nudges
# after NOTIFLOW_RENUDGE_AFTER_SECONDS, 30 s by default; this leaves it a chance first).
OVERDUE_AFTER = timedelta(minutes=1)

_STATUS_COLOURS: dict[str, str] = {
    TriggerStatus.ENQUEUED: "#6b7280",
    TriggerStatus.PROCESSING: "#2f6fb5",
    TriggerStatus.COMPLETED: "#2e8b47",
    TriggerStatus.FAILED: "#ba2121",
    TriggerStatus.CANCELLED: "#8a6d3b",
}


@dataclass(frozen=True)
class Waiting:
    """What an enqueued run waits for: `what` ("waiting until", "retry 2 at", "due since") and
    the time; str() gives both, e.g. "waiting until 2026-11-23 14:00:34"."""

    what: str
    at: datetime

    def __str__(self) -> str:
        return f"{self.what} {admin_time(self.at)}"


def run_waiting(trigger: TriggerInstance, *, now: datetime | None = None) -> Waiting | None:
    """What an enqueued run waits for, for the list and the run page alike: "waiting until"
    its time in a delay, "retry N at" after N failures at its node, "due since" once it is a
    worker's to take. None for a run that is not enqueued."""
    if trigger.status != TriggerStatus.ENQUEUED:
        return None
    if trigger.available_at <= (now or timezone.now()):
        return Waiting("due since", trigger.available_at)
    if trigger.attempts:
        return Waiting(f"retry {trigger.attempts} at", trigger.available_at)
    return Waiting("waiting until", trigger.available_at)


class StuckFilter(admin.SimpleListFilter):
    title = "stuck"
    parameter_name = "stuck"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [("yes", "Expired lease, or due > 1 min ago")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        if self.value() == "yes":
            stuck = trigger_stuck_list(overdue_after=OVERDUE_AFTER).values("pk")
            return queryset.filter(pk__in=stuck)
        return queryset


class DeletedFilter(admin.SimpleListFilter):
    """Soft-deleted runs are out of the list unless asked for (docs/design/rules.md, rule 12): the
    default is "not deleted", and "all" shows both."""

    title = "deleted"
    parameter_name = "deleted"
    DEFAULT = "no"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [("no", "Not deleted"), ("yes", "Deleted"), ("all", "All")]

    def value(self) -> str:
        return super().value() or self.DEFAULT

    def choices(self, changelist: Any) -> Any:
        # Without Django's own "All" (no parameter), which here means "not deleted".
        for lookup, title in self.lookup_choices:
            yield {
                "selected": self.value() == lookup,
                "query_string": changelist.get_query_string({self.parameter_name: lookup}),
                "display": title,
            }

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        if self.value() == "all":
            return queryset
        return queryset.filter(deleted_at__isnull=self.value() != "yes")


class SoftDeleteForm(forms.Form):
    reason = forms.CharField(
        required=False,
        max_length=MAX_DELETE_REASON_LENGTH,
        widget=forms.Textarea(attrs={"rows": 3, "cols": 80}),
        help_text="Kept with each run (delete_reason) and in its timeline.",
    )


@admin.register(TriggerInstance)
class TriggerInstanceAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    # Five columns, so that the list fits beside the filters at 1280 px: the node goes under the
    # workflow, attempts into the status ("retry N at"), long errors are cut (whole in a tooltip).
    list_display = ["short_id", "workflow_node", "status_badge", "error_excerpt", "created"]
    list_filter = [DeletedFilter, "status", StuckFilter, "workflow", "created_at"]
    search_fields = ["=idempotency_key", "=id", "=cancellation_key", "=recipient"]
    search_help_text = "An exact idempotency key, trigger id, cancellation key or recipient id."
    list_select_related = ["workflow"]
    show_full_result_count = False  # no COUNT(*) over the whole table on every page
    # Django's "delete selected" stays out: has_delete_permission is False (ReadOnlyAdminMixin),
    # and rows leave only through the retention commands.
    actions = [
        "cancel_selected",
        "retry_selected",
        "requeue_selected",
        "soft_delete_selected",
        *BULK_ACTIONS,  # through the workers, after a dry run (triggers/admin/bulk_actions.py)
    ]
    change_form_template = "admin/triggers/triggerinstance/change_form.html"

    # --- list columns ----------------------------------------------------------------------
    @admin.display(description="Run")
    def short_id(self, trigger: TriggerInstance) -> str:
        return id_short(trigger.pk)

    @admin.display(description="Workflow, node")
    def workflow_node(self, trigger: TriggerInstance) -> str:
        node = f"at {trigger.current_node_id}" if trigger.current_node_id else "finished"
        return format_html(
            '{}<span class="nf-detail">{}</span>',
            text_cut(trigger.workflow.key, fill=False),
            text_cut(node, fill=False),
        )

    @admin.display(description="Status", ordering="status")
    def status_badge(self, trigger: TriggerInstance) -> str:
        waiting = run_waiting(trigger)
        return format_html(
            '<strong style="color: {}">{}</strong>{}{}',
            _STATUS_COLOURS.get(trigger.status, "#333"),
            trigger.status,
            mark_safe(' <span class="nf-deleted">deleted</span>') if trigger.deleted_at else "",
            format_html(
                '<span class="nf-detail"><span class="nf-nowrap">{}</span> {}</span>',
                waiting.what,
                list_time(waiting.at),
            )
            if waiting
            else "",
        )

    @admin.display(description="Last error")
    def error_excerpt(self, trigger: TriggerInstance) -> str:
        return text_cut(trigger.last_error)

    @admin.display(description="Created", ordering="created_at")
    def created(self, trigger: TriggerInstance) -> str:
        return list_time(trigger.created_at)

    # --- permissions -----------------------------------------------------------------------
    def has_operate_permission(self, request: HttpRequest) -> bool:
        """Cancel, retry, requeue and send test change runs: they need the change permission."""
        return request.user.has_perm("triggers.change_triggerinstance")

    # --- the trigger page ------------------------------------------------------------------
    def change_view(
        self,
        request: HttpRequest,
        object_id: str,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> HttpResponse:
        try:
            trigger_id = uuid.UUID(object_id)
        except ValueError:
            return self._get_obj_does_not_exist_redirect(request, self.opts, object_id)  # type: ignore[attr-defined]
        trigger = get_object_or_404(
            TriggerInstance.objects.select_related("workflow", "workflow_version"), pk=trigger_id
        )
        if not self.has_view_permission(request, trigger):
            raise PermissionDenied
        operate = self.has_operate_permission(request)
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "original": trigger,
            "title": f"Trigger {trigger.pk}",
            "subtitle": None,
            "timeline": [self._timeline_row(entry) for entry in trigger_timeline(trigger=trigger)],
            "story": [self._story_row(entry, trigger) for entry in run_story(trigger)],
            "recipient_known": bool(trigger.recipient)
            and Recipient.objects.filter(pk=trigger.recipient).exists(),
            "payload_json": json_block(trigger.payload),
            "vars_json": json_block(trigger.vars),
            "waiting": run_waiting(trigger),
            "next_attempt": (
                admin_time(trigger.available_at)
                if trigger.status == TriggerStatus.ENQUEUED
                else "—"
            ),
            "can_cancel": operate and not trigger.is_terminal,
            "can_retry": operate
            and trigger.status == TriggerStatus.FAILED
            and trigger.deleted_at is None,
            "can_requeue": operate
            and trigger_stuck_list(overdue_after=OVERDUE_AFTER).filter(pk=trigger.pk).exists(),
            "can_delete": operate and trigger.deleted_at is None,
            "watch": request.GET.get("watch") == "1" and not trigger.is_terminal,
            **(extra_context or {}),
        }
        return TemplateResponse(request, self.change_form_template, context)

    @staticmethod
    def _story_row(entry: dict[str, Any], trigger: TriggerInstance) -> dict[str, Any]:
        """A story entry (triggers.explain) with links to what decided, where the admin has a
        page for it: the suppression entry, the person whose preference it was."""
        links = [
            (
                f"suppression {hit['id']}",
                reverse("admin:deliveries_suppression_change", args=[hit["id"]]),
            )
            for hit in entry["evidence"].get("suppressions", [])
            if isinstance(hit, dict) and "id" in hit
        ]
        if entry["evidence"].get("preference") and trigger.recipient:
            url = reverse("admin:recipients_recipient_change", args=[trigger.recipient])
            links.append((f"{trigger.recipient}'s preferences", url))
        return {**entry, "links": links}

    @staticmethod
    def _timeline_row(entry: Any) -> dict[str, Any]:
        row = {"at": entry.at, "kind": entry.kind, "item": entry.item}
        if entry.kind == "step":
            step = entry.item
            row["duration_ms"] = round((step.finished_at - step.started_at).total_seconds() * 1000)
            row["input_json"] = json_block(step.input)
            row["output_json"] = json_block(step.output)
        return row

    # --- actions: per trigger (buttons on its page) and in bulk (the list) -----------------
    def get_urls(self) -> list[Any]:
        wrap = self.admin_site.admin_view
        info = "triggers_triggerinstance"
        return [
            path(
                "<uuid:trigger_id>/cancel/",
                wrap(self._one(self._cancel)),
                name=f"{info}_cancel",
            ),
            path("<uuid:trigger_id>/retry/", wrap(self._one(self._retry)), name=f"{info}_retry"),
            path(
                "<uuid:trigger_id>/requeue/",
                wrap(self._one(self._requeue)),
                name=f"{info}_requeue",
            ),
            path(
                "send-test/<int:workflow_id>/",
                wrap(require_POST(self.send_test_view)),
                name=f"{info}_send_test",
            ),
            *super().get_urls(),
        ]

    def _cancel(self, trigger_id: Any, request: HttpRequest) -> TriggerInstance:
        return trigger_cancel(
            trigger_id=trigger_id, actor=actor_of(request), reason="cancelled in the admin"
        )

    def _retry(self, trigger_id: Any, request: HttpRequest) -> TriggerInstance:
        return trigger_retry_now(trigger_id=trigger_id, actor=actor_of(request))

    def _requeue(self, trigger_id: Any, request: HttpRequest) -> TriggerInstance:
        return trigger_requeue(
            trigger_id=trigger_id, actor=actor_of(request), overdue_after=OVERDUE_AFTER
        )

    def _one(self, change: Callable[[Any, HttpRequest], TriggerInstance]) -> Callable[..., Any]:
        @require_POST
        def view(request: HttpRequest, trigger_id: uuid.UUID) -> HttpResponse:
            if not self.has_operate_permission(request):
                raise PermissionDenied
            url = reverse("admin:triggers_triggerinstance_change", args=[trigger_id])
            try:
                trigger = change(trigger_id, request)
            except TriggerStateConflict as exc:
                messages.warning(request, f"Nothing done: {exc}.")
            except TriggerNotFound:
                messages.error(request, "No such trigger.")
            else:
                if trigger.status != TriggerStatus.ENQUEUED:
                    messages.success(request, f"Trigger is now {trigger.status}.")
                else:
                    # A worker may take it (and fail it again) before the page below loads:
                    # "now enqueued" beside a `failed` status read as a lie. The page follows
                    # the run instead.
                    messages.success(
                        request,
                        "Back in the queue: a worker runs it shortly; this page follows it.",
                    )
                    url += "?watch=1"
            return HttpResponseRedirect(url)

        return view

    def _bulk(
        self,
        request: HttpRequest,
        queryset: QuerySet[TriggerInstance],
        change: Callable[[Any, HttpRequest], TriggerInstance],
        done: str,
    ) -> None:
        changed, skipped = 0, []
        for trigger_id in queryset.values_list("pk", flat=True):
            try:
                change(trigger_id, request)
                changed += 1
            except (TriggerStateConflict, TriggerNotFound) as exc:
                skipped.append(f"{str(trigger_id)[:8]}: {exc}")
        if changed:
            messages.success(request, f"{changed} trigger(s) {done}.")
        if skipped:
            messages.warning(request, f"{len(skipped)} skipped — " + "; ".join(skipped[:10]))

    @admin.action(description="Cancel selected triggers", permissions=["operate"])
    def cancel_selected(self, request: HttpRequest, queryset: QuerySet[TriggerInstance]) -> None:
        self._bulk(request, queryset, self._cancel, "cancelled")

    @admin.action(description="Retry selected failed triggers now", permissions=["operate"])
    def retry_selected(self, request: HttpRequest, queryset: QuerySet[TriggerInstance]) -> None:
        self._bulk(request, queryset, self._retry, "put back to enqueued")

    @admin.action(description="Requeue selected stuck triggers", permissions=["operate"])
    def requeue_selected(self, request: HttpRequest, queryset: QuerySet[TriggerInstance]) -> None:
        self._bulk(request, queryset, self._requeue, "requeued")

    @admin.action(description="Soft delete selected triggers", permissions=["operate"])
    def soft_delete_selected(
        self, request: HttpRequest, queryset: QuerySet[TriggerInstance]
    ) -> HttpResponse | None:
        """Like Django's delete confirmation: a page that lists the runs and asks for the reason,
        whose POST (with `post`) soft-deletes them. Nothing is removed: they leave the lists, are
        never claimed again and keep their history."""
        form = SoftDeleteForm(request.POST if "post" in request.POST else None)
        if form.is_valid():
            reason = form.cleaned_data["reason"]
            already = queryset.filter(deleted_at__isnull=False).count()

            def delete(trigger_id: Any, request: HttpRequest) -> TriggerInstance:
                return trigger_delete(trigger_id=trigger_id, actor=actor_of(request), reason=reason)

            self._bulk(request, queryset.filter(deleted_at__isnull=True), delete, "soft-deleted")
            if already:
                messages.info(request, f"{already} already deleted: left as they were.")
            return None
        runs = list(queryset.select_related("workflow")[: self.CONFIRM_SHOWN])
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": "Soft delete runs",
            "subtitle": None,
            "form": form,
            "runs": runs,
            "more": max(queryset.count() - len(runs), 0),
            "selected": request.POST.getlist(helpers.ACTION_CHECKBOX_NAME),
            "select_across": request.POST.get("select_across", "0"),
            "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
        }
        return TemplateResponse(
            request, "admin/triggers/triggerinstance/soft_delete_confirmation.html", context
        )

    CONFIRM_SHOWN = 100  # runs listed on the confirmation page; the count says the rest

    # --- send test (from the workflow page) ------------------------------------------------
    def send_test_view(self, request: HttpRequest, workflow_id: int) -> HttpResponse:
        """Trigger the workflow with the sample payload and a fresh `admin-test-<uuid>` key, then
        show the run."""
        if not self.has_operate_permission(request):
            raise PermissionDenied
        workflow = get_object_or_404(workflow_list(), pk=workflow_id)
        back = reverse("admin:workflows_workflow_preview", args=[workflow.pk])
        form = SamplePayloadForm(request.POST)
        if not form.is_valid():
            messages.error(
                request, f"Not sent: {' '.join(str(e) for e in form.errors.get('payload', []))}"
            )
            return HttpResponseRedirect(back)
        remember_payload(request, workflow, form.data["payload"])
        try:
            trigger, _ = trigger_create(
                workflow_key=workflow.key,
                idempotency_key=f"admin-test-{uuid.uuid4()}",
                payload=form.cleaned_data["payload"],
                actor=actor_of(request),
            )
        except TriggerRejected as exc:
            messages.error(request, f"Not sent: {exc.message}")
            return HttpResponseRedirect(back)
        url = reverse("admin:triggers_triggerinstance_change", args=[trigger.pk])
        messages.success(
            request,
            format_html(
                'Test run <a href="{}">{}</a> of {} v{} started (key {}).',
                url,
                trigger.pk,
                workflow.key,
                workflow.version,
                trigger.idempotency_key,
            ),
        )
        return HttpResponseRedirect(url + "?watch=1")

"""Bulk actions in the admin (docs/bulk-actions.md): cancel, retry or replay the runs selected on
the run list (all of a filtered list with "select all"), as one bulk action the workers carry
out (triggers/actions.py), after a confirmation page that states the dry run's count; and the
actions themselves, read-only, with who asked, the filter and the outcome."""

from __future__ import annotations

import uuid
from typing import Any

from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from common.actors import actor_of
from common.admin import (
    ReadOnlyAdminMixin,
    id_short,
    json_block,
    list_time,
    text_wrap,
    time_column,
)
from triggers.actions import (
    IDS_MAX,
    ActionFilter,
    ActionKeyReused,
    ActionTooBig,
    action_preview,
    action_start,
)
from triggers.models import TriggerAction, TriggerActionKind, TriggerInstance

_WHAT: dict[str, str] = {
    TriggerActionKind.CANCEL: "cancel (unfinished runs only)",
    TriggerActionKind.RETRY: "retry from the node that failed (failed runs only)",
    TriggerActionKind.REPLAY: "replay as new runs of the same version, payload and recipient",
}


def _confirmed(
    modeladmin: Any, request: HttpRequest, queryset: QuerySet[TriggerInstance], kind: str
) -> HttpResponse | None:
    """The confirmation page with the dry run's count; its POST (with `post`) starts the
    action and goes to its page."""
    ids = list(queryset.order_by("pk").values_list("pk", flat=True)[: IDS_MAX + 1])
    if len(ids) > IDS_MAX:
        messages.error(
            request,
            f"Select at most {IDS_MAX} runs for a bulk action here; for more, use "
            "POST /api/triggers/actions/ or manage.py runs_action with a filter.",
        )
        return None
    run_filter = ActionFilter(ids=tuple(ids))
    try:
        if "post" in request.POST:
            action, _ = action_start(
                kind=kind,
                run_filter=run_filter,
                actor=actor_of(request),
                idempotency_key=request.POST.get("idempotency_key", ""),
            )
            url = reverse("admin:triggers_triggeraction_change", args=[action.pk])
            messages.success(
                request,
                format_html(
                    'Bulk action <a href="{}">{}</a> started: {} run(s) to {}.',
                    url,
                    id_short(action.pk),
                    action.matched,
                    kind,
                ),
            )
            return HttpResponseRedirect(url)
        matched, sample = action_preview(kind, run_filter)
    except (ActionTooBig, ActionKeyReused) as exc:
        messages.error(request, str(exc))
        return None
    context = {
        **modeladmin.admin_site.each_context(request),
        "opts": modeladmin.opts,
        "title": f"Bulk action: {kind}",
        "subtitle": None,
        "kind": kind,
        "what": _WHAT[kind],
        "selected_count": len(ids),
        "matched": matched,
        "sample": sample,
        "selected": request.POST.getlist(helpers.ACTION_CHECKBOX_NAME),
        "select_across": request.POST.get("select_across", "0"),
        "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
        "action_name": f"bulk_{kind}",
        # One key per confirmation page: a double submit starts one action.
        "idempotency_key": f"admin:{uuid.uuid4()}",
    }
    return TemplateResponse(
        request, "admin/triggers/triggerinstance/bulk_action_confirmation.html", context
    )


@admin.action(description="Bulk action: cancel selected runs…", permissions=["operate"])
def bulk_cancel(modeladmin: Any, request: HttpRequest, queryset: QuerySet[Any]) -> Any:
    return _confirmed(modeladmin, request, queryset, TriggerActionKind.CANCEL)


@admin.action(description="Bulk action: retry selected failed runs…", permissions=["operate"])
def bulk_retry(modeladmin: Any, request: HttpRequest, queryset: QuerySet[Any]) -> Any:
    return _confirmed(modeladmin, request, queryset, TriggerActionKind.RETRY)


@admin.action(description="Bulk action: replay selected runs…", permissions=["operate"])
def bulk_replay(modeladmin: Any, request: HttpRequest, queryset: QuerySet[Any]) -> Any:
    return _confirmed(modeladmin, request, queryset, TriggerActionKind.REPLAY)


BULK_ACTIONS = [bulk_cancel, bulk_retry, bulk_replay]


# The action's page: every field shown, none editable.
_SHOWN: tuple[str, ...] = (
    "id",
    "action",
    "status",
    "outcome",
    "requested_by",
    "idempotency_key",
    "filter_json",
    "runs",
    "errors_json",
    "last_error",
    "created",
    "finished",
)
# How many of the runs a filter names by id the action's page links.
RUNS_LINKED = 20


@admin.register(TriggerAction)
class TriggerActionAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = ["at", "short_id", "action", "status", "outcome", "requested_by"]
    list_display_links = ["at", "short_id"]
    list_filter = ["action", "status"]
    search_fields = ["=id", "=idempotency_key"]
    show_full_result_count = False
    fields = _SHOWN
    readonly_fields = _SHOWN
    created = time_column("created_at", "Created")
    finished = time_column("finished_at", "Finished")

    @admin.display(description="At", ordering="created_at")
    def at(self, action: TriggerAction) -> str:
        return list_time(action.created_at)

    @admin.display(description="Action")
    def short_id(self, action: TriggerAction) -> str:
        return id_short(action.pk)

    @admin.display(description="Outcome")
    def outcome(self, action: TriggerAction) -> str:
        return (
            f"{action.matched} matched: {action.done} done, {action.skipped} skipped, "
            f"{action.errors} error(s)"
        )

    @admin.display(description="Filter")
    def filter_json(self, action: TriggerAction) -> str:
        return json_block(action.filter)

    @admin.display(description="Runs")
    def runs(self, action: TriggerAction) -> SafeString:
        """The runs the filter names by id, each a link to its page (the first RUNS_LINKED)."""
        ids = (action.filter or {}).get("ids") or []
        if not ids:
            return text_wrap("those the filter matches")
        links = format_html_join(
            ", ",
            '<a href="{}">{}</a>',
            (
                (reverse("admin:triggers_triggerinstance_change", args=[run_id]), id_short(run_id))
                for run_id in ids[:RUNS_LINKED]
            ),
        )
        more = f" … {len(ids)} in all" if len(ids) > RUNS_LINKED else ""
        return format_html("{}{}", links, more)

    @admin.display(description="First errors")
    def errors_json(self, action: TriggerAction) -> str:
        return json_block(action.error_sample) if action.error_sample else text_wrap("none")

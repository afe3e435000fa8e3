"""Step logs and the send ledger in the admin: read-only, their JSON shown indented."""

from typing import Any

from django.contrib import admin
from django.urls import reverse
from django.utils.html import format_html

from notiflow.admin import ReadOnlyAdminMixin, id_short, json_block, list_time, text_cut
from workers.models import SendLedger, StepExecutionLog


def _run_link(trigger_id: Any, *, short: bool = False) -> str:
    url = reverse("admin:triggers_triggerinstance_change", args=[trigger_id])
    return format_html('<a href="{}">{}</a>', url, id_short(trigger_id) if short else trigger_id)


@admin.register(StepExecutionLog)
class StepExecutionLogAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    # Five columns, so that the list fits beside the filters at 1280 px: type and attempt go
    # under the node, long errors are cut (whole in a tooltip). Newest first.
    list_display = ["started", "run_short", "step", "result", "error_excerpt"]
    list_display_links = ["started"]
    list_filter = ["success", "node_type", "workflow"]
    search_fields = ["=trigger__id", "node_id"]
    ordering = ["-started_at"]
    show_full_result_count = False  # no COUNT(*) over the whole table on every page
    fields = readonly_fields = (
        "run",
        "workflow",
        "node_id",
        "node_type",
        "attempt",
        "started_at",
        "finished_at",
        "success",
        "error",
        "output_json",
        "input_json",
    )

    @admin.display(description="Started", ordering="started_at")
    def started(self, step: StepExecutionLog) -> str:
        return list_time(step.started_at)

    @admin.display(description="Run")
    def run_short(self, step: StepExecutionLog) -> str:
        return _run_link(step.trigger_id, short=True)

    @admin.display(description="Step")
    def step(self, step: StepExecutionLog) -> str:
        return format_html(
            '{}<span class="nf-detail">{} · attempt {}</span>',
            text_cut(step.node_id, fill=False),
            step.node_type,
            step.attempt,
        )

    @admin.display(description="Result", ordering="success")
    def result(self, step: StepExecutionLog) -> str:
        milliseconds = round((step.finished_at - step.started_at).total_seconds() * 1000)
        return format_html(
            '<span class="{}">{}</span><span class="nf-detail">{} ms</span>',
            "nf-ok" if step.success else "nf-failed",
            "✓ ok" if step.success else "✗ failed",
            milliseconds,
        )

    @admin.display(description="Error")
    def error_excerpt(self, step: StepExecutionLog) -> str:
        return text_cut(step.error)

    @admin.display(description="Run")
    def run(self, step: StepExecutionLog) -> str:
        return _run_link(step.trigger_id)

    @admin.display(description="Output")
    def output_json(self, step: StepExecutionLog) -> str:
        return json_block(step.output)

    @admin.display(description="Input (the context the step saw)")
    def input_json(self, step: StepExecutionLog) -> str:
        return json_block(step.input)


@admin.register(SendLedger)
class SendLedgerAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = ["key", "channel", "status", "send_count", "created", "sent"]
    list_filter = ["status", "channel"]
    search_fields = ["idempotency_key"]
    fields = readonly_fields = (
        "run",
        "node_id",
        "idempotency_key",
        "channel",
        "status",
        "send_count",
        "created_at",
        "sent_at",
        "result_json",
    )

    @admin.display(description="Idempotency key", ordering="idempotency_key")
    def key(self, send: SendLedger) -> str:
        return text_cut(send.idempotency_key)

    @admin.display(description="Created", ordering="created_at")
    def created(self, send: SendLedger) -> str:
        return list_time(send.created_at)

    @admin.display(description="Sent", ordering="sent_at")
    def sent(self, send: SendLedger) -> str:
        return list_time(send.sent_at)

    @admin.display(description="Run")
    def run(self, send: SendLedger) -> str:
        return _run_link(send.trigger_id)

    @admin.display(description="Provider's answer")
    def result_json(self, send: SendLedger) -> str:
        return json_block(send.result)

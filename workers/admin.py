"""Step logs and the send ledger in the admin: read-only, their JSON shown indented."""

from typing import Any

from django.contrib import admin
from django.urls import reverse
from django.utils.html import format_html

from notiflow.admin import json_block
from triggers.admin import ReadOnlyAdminMixin
from workers.models import SendLedger, StepExecutionLog


def _run_link(trigger_id: Any) -> str:
    url = reverse("admin:triggers_triggerinstance_change", args=[trigger_id])
    return format_html('<a href="{}">{}</a>', url, trigger_id)


@admin.register(StepExecutionLog)
class StepExecutionLogAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = ["trigger", "node_id", "node_type", "attempt", "success", "started_at", "error"]
    list_filter = ["success", "node_type", "workflow"]
    search_fields = ["=trigger__id", "node_id"]
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
    list_display = ["idempotency_key", "channel", "status", "send_count", "created_at", "sent_at"]
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

    @admin.display(description="Run")
    def run(self, send: SendLedger) -> str:
        return _run_link(send.trigger_id)

    @admin.display(description="Provider's answer")
    def result_json(self, send: SendLedger) -> str:
        return json_block(send.result)

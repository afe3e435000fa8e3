from django.contrib import admin

from triggers.admin import ReadOnlyAdminMixin
from workers.models import SendLedger, StepExecutionLog


@admin.register(StepExecutionLog)
class StepExecutionLogAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = ["trigger", "node_id", "node_type", "attempt", "success", "started_at", "error"]
    list_filter = ["success", "node_type", "workflow"]
    search_fields = ["=trigger__id", "node_id"]
    readonly_fields = [f.name for f in StepExecutionLog._meta.fields]


@admin.register(SendLedger)
class SendLedgerAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = ["idempotency_key", "channel", "status", "send_count", "created_at", "sent_at"]
    list_filter = ["status", "channel"]
    search_fields = ["idempotency_key"]
    readonly_fields = [f.name for f in SendLedger._meta.fields]

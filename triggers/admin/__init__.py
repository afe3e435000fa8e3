"""Runs in the admin: the trigger list and page (timeline, actions, send test), audit events and
API keys, and the run statistics on each workflow's page. Logs and events are read-only
everywhere."""

from django.contrib import admin
from django.urls import reverse
from django.utils.html import format_html

from common.admin import ReadOnlyAdminMixin, id_short, list_time, text_cut, text_wrap
from triggers.admin.api_keys import ApiKeyAdmin
from triggers.admin.bulk_actions import TriggerActionAdmin
from triggers.admin.charts import workflow_charts_panel
from triggers.admin.recipient_runs import recipient_runs_panel
from triggers.admin.runs import TriggerInstanceAdmin
from triggers.admin.stats import workflow_stats_panel
from triggers.models import TriggerEvent

__all__ = [
    "ApiKeyAdmin",
    "TriggerActionAdmin",
    "TriggerEventAdmin",
    "TriggerInstanceAdmin",
    "recipient_runs_panel",
    "workflow_charts_panel",
    "workflow_stats_panel",
]


@admin.register(TriggerEvent)
class TriggerEventAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = ["at", "run", "transition", "reason_cut", "actor_cut"]
    list_display_links = ["at"]
    list_filter = ["to_status"]
    search_fields = ["=trigger__id"]
    show_full_result_count = False

    @admin.display(description="At", ordering="created_at")
    def at(self, event: TriggerEvent) -> str:
        return list_time(event.created_at)

    @admin.display(description="Run")
    def run(self, event: TriggerEvent) -> str:
        url = reverse("admin:triggers_triggerinstance_change", args=[event.trigger_id])
        return format_html('<a href="{}">{}</a>', url, id_short(event.trigger_id))

    @admin.display(description="Status, node")
    def transition(self, event: TriggerEvent) -> str:
        return format_html(
            '{} → <strong>{}</strong><span class="nf-detail">{}</span>',
            event.from_status or "·",
            event.to_status,
            text_cut(f"at {event.node_id}" if event.node_id else "", fill=False),
        )

    # Reason and actor whole (wrapped): cut at 12em they lost what tells events apart, e.g. the
    # worker's id after its host name.
    @admin.display(description="Reason")
    def reason_cut(self, event: TriggerEvent) -> str:
        return text_wrap(event.reason)

    @admin.display(description="By")
    def actor_cut(self, event: TriggerEvent) -> str:
        return text_wrap(event.actor)

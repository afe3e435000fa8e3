"""Step logs, the send ledger and digests in the admin: read-only, their JSON shown indented."""

from typing import Any

from django.contrib import admin
from django.db.models import Count, QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join

from common.admin import ReadOnlyAdminMixin, id_short, json_block, list_time, text_cut
from workers.models import Digest, SendLedger, StepExecutionLog


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


def idempotency_key_short(key: str) -> str:
    """A send's key (`<trigger id>:<node id>`) as a list shows it: the run's id cut to 8
    characters, the node id whole (it is what tells one run's sends apart); the whole key in
    the tooltip."""
    run, separator, node = key.partition(":")
    shown = f"{run[:8]}…{separator}{node}" if separator and len(run) > 8 else key
    return format_html('<span class="nf-id nf-wrap" title="{}">{}</span>', key, shown)


@admin.register(SendLedger)
class SendLedgerAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    # Four columns that fit beside the filters at 1280 px: the channel under the key, the number
    # of sends under the status.
    list_display = ["key", "state", "created", "sent"]
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
        return format_html(
            '{}<span class="nf-detail">{}</span>',
            idempotency_key_short(send.idempotency_key),
            send.channel,
        )

    @admin.display(description="Status", ordering="status")
    def state(self, send: SendLedger) -> str:
        sends = f"{send.send_count} send{'' if send.send_count == 1 else 's'}"
        return format_html('{}<span class="nf-detail">{}</span>', send.get_status_display(), sends)

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


@admin.register(Digest)
class DigestAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    """The digests of digest nodes (docs/design/workflows.md, "Timing and flow-control nodes"): which runs
    each gathered, and whether its window is still open. Kept a week after closing."""

    list_display = ["opened", "key_short", "node", "state", "runs", "opener_short"]
    list_display_links = ["opened"]
    list_filter = ["workflow", "node_id"]
    search_fields = ["key", "=opener_id"]
    ordering = ["-opened_at"]
    show_full_result_count = False
    fields = readonly_fields = (
        "id",
        "workflow",
        "node_id",
        "key",
        "opener",
        "opened_at",
        "closes_at",
        "closed_at",
        "entries_table",
    )

    def get_queryset(self, request: HttpRequest) -> QuerySet[Digest]:
        return super().get_queryset(request).annotate(entry_count=Count("entries"))

    @admin.display(description="Opened", ordering="opened_at")
    def opened(self, digest: Digest) -> str:
        return list_time(digest.opened_at)

    @admin.display(description="Key", ordering="key")
    def key_short(self, digest: Digest) -> str:
        return text_cut(digest.key)

    @admin.display(description="Node", ordering="node_id")
    def node(self, digest: Digest) -> str:
        return format_html(
            '{}<span class="nf-detail">{}</span>', digest.node_id, digest.workflow.key
        )

    @admin.display(description="State")
    def state(self, digest: Digest) -> str:
        if digest.closed_at is not None:
            return "closed: its opener went on"
        if digest.closes_at > timezone.now():
            return "gathering"
        return "window over: its opener is due"

    @admin.display(description="Runs", ordering="entry_count")
    def runs(self, digest: Digest) -> int:
        return int(getattr(digest, "entry_count", 0))

    @admin.display(description="Opener")
    def opener_short(self, digest: Digest) -> str:
        return _run_link(digest.opener_id, short=True)

    @admin.display(description="Opened by (the run that sends it)")
    def opener(self, digest: Digest) -> str:
        return _run_link(digest.opener_id)

    @admin.display(description="Runs gathered, oldest first")
    def entries_table(self, digest: Digest) -> str:
        rows = format_html_join(
            "",
            "<tr><td>{}</td><td>{}</td><td>{}</td></tr>",
            (
                (
                    list_time(entry.joined_at),
                    _run_link(entry.trigger_id, short=True),
                    json_block(entry.payload),
                )
                for entry in digest.entries.all()
            ),
        )
        return format_html(
            "<table><thead><tr><th>Joined</th><th>Run</th><th>Payload</th></tr></thead>"
            "<tbody>{}</tbody></table>",
            rows,
        )

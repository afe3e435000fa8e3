"""A person's runs on their recipient page, added through recipients.hooks.RECIPIENT_PAGE_PANELS
(recipients cannot import triggers; triggers may import recipients)."""

from __future__ import annotations

from urllib.parse import urlencode

from django.urls import reverse
from django.utils.html import format_html

from common.admin import id_short, list_time, text_cut
from recipients.admin import PANEL_ROWS, recipient_panel
from recipients.models import Recipient
from triggers.models import TriggerInstance


def recipient_runs_panel(recipient: Recipient) -> str:
    """The person's latest runs, newest first (trigger_recipient_created_idx), each a link to
    its page."""
    runs = (
        TriggerInstance.objects.filter(recipient=recipient.key)
        .select_related("workflow")
        .order_by("-created_at")[:PANEL_ROWS]
    )
    rows = [
        (
            format_html(
                '<a href="{}">{}</a>',
                reverse("admin:triggers_triggerinstance_change", args=[run.pk]),
                id_short(run.pk),
            ),
            run.workflow.key,
            run.status,
            text_cut(run.last_error, fill=False),
            list_time(run.created_at),
        )
        for run in runs
    ]
    changelist = reverse("admin:triggers_triggerinstance_changelist")
    return recipient_panel(
        title="Runs",
        headers=("Run", "Workflow", "Status", "Last error", "Created"),
        rows=rows,
        empty="No run names this recipient.",
        more_url=f"{changelist}?{urlencode({'q': recipient.key})}",
    )

"""The engagement funnel on the workflow's admin page, in chromium (docs/funnel.md): one bar
chart per sending node below the run charts, inside the page's width; the picture in
docs/images/workflow-funnel.png is this one (NOTIFLOW_SNAPSHOT_UPDATE=1 writes it there)."""

from __future__ import annotations

from django.utils import timezone

from deliveries.models import FunnelCount
from tests.conftest import unique
from tests.factories import WorkflowFactory, chain, email_node, sms_node
from tests.ops.test_admin_browser import browser_page, docs_image, log_in  # noqa: F401 (fixture)

# A day of a welcome email and its SMS reminder, as the rollup holds it.
COUNTS = {
    ("welcome", "email"): {
        "sent": 1840, "delivered": 1772, "opened": 903, "clicked": 241, "bounced": 38,
        "complained": 3, "unsubscribed": 17, "skipped": 212, "failed": 9,
    },
    ("reminder", "sms"): {"sent": 655, "delivered": 631, "skipped": 1203, "failed": 4},
}  # fmt: skip


def test_the_workflow_page_draws_the_funnel_of_each_sending_node(e2e, browser_page):  # noqa: F811
    from playwright.sync_api import expect

    page, base = browser_page, e2e.base_url
    log_in(page, base)
    workflow = WorkflowFactory(
        key=unique("wf-funnel"), definition=chain(email_node("welcome"), sms_node("reminder"))
    )
    hour = timezone.now().replace(minute=0, second=0, microsecond=0)
    FunnelCount.objects.bulk_create(
        FunnelCount(
            workflow=workflow,
            hour=hour,
            node_id=node,
            channel=channel,
            outcome=outcome,
            slot=0,
            count=count,
        )
        for (node, channel), counts in COUNTS.items()
        for outcome, count in counts.items()
    )
    try:
        page.goto(f"{base}/admin/workflows/workflow/{workflow.pk}/change/")
        charts = page.locator("#funnel svg.nf-chart")
        expect(charts).to_have_count(2)
        for index in range(2):
            expect(charts.nth(index)).to_be_visible()
        expect(page.locator("#funnel")).to_contain_text("delivery rate 96.3%")
        box = page.locator("#funnel").bounding_box()
        assert box and box["x"] + box["width"] <= 1280, box
        page.locator("#funnel").screenshot(path=docs_image("workflow-funnel.png"))
    finally:
        workflow.delete()

"""The widget in a real browser (Chromium through Playwright, as the admin's test): two tabs of a
page with `{% notiflow_inbox %}` are open, a workflow with an inapp node runs for the recipient,
the bell shows 1 without a reload, a click marks the message read and the count falls to 0 on
the other tab too."""

from __future__ import annotations

import pytest
from django.template import Context, Template
from django.test import override_settings

from recipients.models import Recipient
from tests.conftest import STACK_SETTINGS, unique
from tests.factories import WorkflowFactory, chain
from tests.inbox.test_inapp_node import inapp_node
from tests.ops.test_admin_browser import SHOTS, browser_page  # noqa: F401 (the fixture)
from triggers.services import TriggerRequest, triggers_create

pytestmark = pytest.mark.e2e

PAGE = "/widget-test/"


def widget_page(recipient: str) -> str:
    with override_settings(NOTIFLOW_INBOX_SECRET=STACK_SETTINGS["NOTIFLOW_INBOX_SECRET"]):
        tag = Template("{% load notiflow_inbox %}{% notiflow_inbox who %}").render(
            Context({"who": recipient})
        )
    return (
        '<!doctype html><html><head><meta name="viewport" content="width=device-width">'
        "<title>Client site</title></head><body style='font-family:sans-serif'>"
        f"<nav style='display:flex;justify-content:space-between'><b>Client site</b>{tag}</nav>"
        "</body></html>"
    )


def badge(page):
    return page.locator("notiflow-inbox").locator(".badge")


def test_the_bell_counts_a_new_message_live_and_a_click_reads_it_on_both_tabs(
    e2e,
    browser_page,  # noqa: F811 (the fixture)
):
    recipient = Recipient.objects.create(key=unique("person")).key
    html = widget_page(recipient)
    first = browser_page
    # A second tab, 320 px wide (pages of the fixture's browser each have a context of their own).
    second = first.context.browser.new_page(viewport={"width": 320, "height": 640})
    for page in (first, second):
        page.route(
            f"{e2e.base_url}{PAGE}",
            lambda route: route.fulfill(body=html, content_type="text/html"),
        )
        page.goto(f"{e2e.base_url}{PAGE}")
        page.wait_for_function("customElements.get('notiflow-inbox') !== undefined")
        badge(page).wait_for(state="hidden")

    workflow = WorkflowFactory(definition=chain(inapp_node(action_url="")))
    triggers_create(
        [
            TriggerRequest(
                workflow.key, unique("k"), {"name": "Ada", "amount": "3"}, recipient=recipient
            )
        ]
    )

    for page in (first, second):  # no reload: the stream brings it
        badge(page).wait_for(state="visible", timeout=15_000)
        assert badge(page).inner_text() == "1"
    first.locator("notiflow-inbox").locator(".bell").click()
    item = first.locator("notiflow-inbox").locator("li.unread")
    item.wait_for()
    assert "Hello Ada" in item.inner_text()
    first.screenshot(
        path=str(SHOTS / "inbox-widget.png"), clip={"x": 860, "y": 0, "width": 420, "height": 180}
    )
    item.click()

    for page in (first, second):
        badge(page).wait_for(state="hidden", timeout=5_000)
    first.locator("notiflow-inbox").locator("li.read").wait_for()

"""The widget in a real browser (Chromium through Playwright, as the admin's test): two tabs of a
page with the widget as notiflow-client renders it (`notiflow_client.inbox_widget`, what its
`{% notiflow_inbox %}` tag renders) are open, a workflow with an inapp node runs for the recipient,
the bell shows 1 without a reload, a click marks the message read and the count falls to 0 on
the other tab too."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
import requests
from django.utils import timezone
from notiflow_client import inbox_widget

from inbox.models import InboxMessage
from inbox.services import PAGE_SIZE
from recipients.models import Recipient
from tests.conftest import STACK_SETTINGS, unique
from tests.factories import WorkflowFactory, chain
from tests.inbox.support import stack_headers
from tests.inbox.test_inapp_node import inapp_node
from tests.ops.test_admin_browser import browser_page, docs_image, shot  # noqa: F401 (the fixture)
from triggers.services import TriggerRequest, triggers_create

pytestmark = pytest.mark.e2e

PAGE = "/widget-test/"


def widget_page(recipient: str, base_url: str) -> str:
    secret = STACK_SETTINGS["NOTIFLOW_INBOX_SECRET"]
    tag = inbox_widget(recipient, url=base_url, secret=secret)
    return (
        '<!doctype html><html><head><meta name="viewport" content="width=device-width">'
        "<title>Client site</title></head><body style='font-family:sans-serif'>"
        f"<nav style='display:flex;justify-content:space-between'><b>Client site</b>{tag}</nav>"
        "</body></html>"
    )


def badge(page):
    return page.locator("notiflow-inbox").locator(".badge")


def open_widget(page, base_url: str, html: str) -> None:
    page.route(
        f"{base_url}{PAGE}", lambda route: route.fulfill(body=html, content_type="text/html")
    )
    page.goto(f"{base_url}{PAGE}")
    page.wait_for_function("customElements.get('notiflow-inbox') !== undefined")


def test_the_bell_counts_a_new_message_live_and_a_click_reads_it_on_both_tabs(
    e2e,
    browser_page,  # noqa: F811 (the fixture)
):
    recipient = Recipient.objects.create(key=unique("person")).key
    html = widget_page(recipient, e2e.base_url)
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
        path=docs_image("inbox-widget.png"), clip={"x": 860, "y": 0, "width": 420, "height": 180}
    )
    item.click()

    for page in (first, second):
        badge(page).wait_for(state="hidden", timeout=5_000)
    first.locator("notiflow-inbox").locator("li.read").wait_for()


def test_load_more_shows_the_next_page_and_another_tabs_marks_show_on_the_items(
    e2e,
    browser_page,  # noqa: F811 (the fixture)
):
    """Past the first page, "Load more" appends the older messages; a read and an archive made
    through the API (as another tab makes them) show on the open list's items, not only on the
    counts: the read one on page 2 is shown read, the archived one leaves the list."""
    from playwright.sync_api import expect

    recipient = Recipient.objects.create(key=unique("person")).key
    now = timezone.now()
    stored = InboxMessage.objects.bulk_create(
        InboxMessage(
            recipient=recipient,
            trigger_id=uuid.uuid4(),
            node_id="bell",
            workflow_key="welcome",
            title=f"Message {i}",
            body=f"Body of message {i}",
            body_html=f"<p>Body of message <b>{i}</b></p>",
            created_at=now - timedelta(minutes=i),
        )
        for i in range(PAGE_SIZE + 5)
    )
    page = browser_page
    open_widget(page, e2e.base_url, widget_page(recipient, e2e.base_url))
    widget = page.locator("notiflow-inbox")
    badge(page).wait_for(state="visible")
    widget.locator(".bell").click()
    items = widget.locator("li[data-id]")
    more = widget.locator(".more")
    more.wait_for()
    assert items.count() == PAGE_SIZE
    more.scroll_into_view_if_needed()
    shot(page, "inbox-widget-load-more")

    more.click()
    widget.locator(f'li[data-id="{stored[-1].pk}"]').wait_for()
    assert items.count() == PAGE_SIZE + 5
    more.wait_for(state="hidden")
    assert "Message 24" in items.last.inner_text()

    on_page_two, first = stored[PAGE_SIZE + 2], stored[0]
    item = widget.locator(f'li[data-id="{on_page_two.pk}"]')
    assert item.get_attribute("class") == "unread"
    mark_elsewhere(e2e.base_url, recipient, on_page_two, "read")
    widget.locator(f'li.read[data-id="{on_page_two.pk}"]').wait_for(timeout=5_000)
    mark_elsewhere(e2e.base_url, recipient, first, "archived")
    widget.locator(f'li[data-id="{first.pk}"]').wait_for(state="detached", timeout=5_000)
    assert items.count() == PAGE_SIZE + 4
    expect(badge(page)).to_have_text(str(PAGE_SIZE + 3))
    item.scroll_into_view_if_needed()
    shot(page, "inbox-widget-more")


def mark_elsewhere(base_url: str, recipient: str, message: InboxMessage, mark: str) -> None:
    """Mark `message` through the API, as another tab of the recipient does."""
    answer = requests.post(
        f"{base_url}/api/inbox/mark/",
        json={"ids": [str(message.pk)], "as": mark},
        headers=stack_headers(recipient),
        timeout=10,
    )
    assert answer.status_code == 200 and answer.json()["marked"] == [str(message.pk)], answer.text

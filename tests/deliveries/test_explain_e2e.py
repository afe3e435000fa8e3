"""Explaining a run end to end (docs/design/deliveries.md, "Explaining a run"): on the stack's real worker a
person's preference skips an email, and `GET /api/triggers/<id>/explain/` (through gunicorn)
says so in words, naming the preference; in a real browser, the run page shows that story and
the person's page its "Why?" panel, the dry run of a chosen workflow. Screenshots land in
artifacts/screenshots/ (explain-run.png, explain-why.png)."""

from __future__ import annotations

import re

import pytest

from recipients.models import Category, Recipient
from tests.conftest import unique
from tests.factories import WorkflowFactory, chain, email_node, sms_node
from tests.ops.test_admin_browser import browser_page, log_in, shot  # noqa: F401 (the fixture)
from tests.recipients.test_preferences_e2e import fire_for
from tests.workers.helpers import wait_terminal

pytestmark = pytest.mark.e2e


def without_to(node: dict) -> dict:
    return {k: v for k, v in node.items() if k != "to"}


def test_a_preference_that_skips_an_email_is_what_the_story_says(e2e, api, smtp_server):
    comments = unique("comments")
    Category.objects.create(slug=comments, name="Comments")
    person = Recipient.objects.create(
        key=unique("ann"),
        name="Ann",
        email=f"ok-{unique()}@example.com",
        phone="+15550177",
        preferences={"categories": {comments: {"email": False}}},
    )
    workflow = WorkflowFactory(
        definition={
            **chain(without_to(email_node("mail")), without_to(sms_node("text"))),
            "preference_category": comments,
        }
    )

    trigger_id = fire_for(workflow, person.key, {"name": "Ann"})
    assert wait_terminal(trigger_id).status == "completed"
    answer = api.get(f"/api/triggers/{trigger_id}/explain/")

    assert answer.status_code == 200, answer.text
    mail, text = answer.json()["story"]
    assert (mail["node"], mail["decision"], mail["rule"]) == ("mail", "skipped", "preference")
    assert mail["reason"] == (
        f"Email skipped: Ann turned off email for {comments} (categories.{comments}.email)"
    )
    assert mail["evidence"]["preference"] == f"categories.{comments}.email"
    assert text["decision"] == "sent" and text["evidence"]["to"] == "+15550177"
    assert smtp_server.handler.to(person.email) == []


def test_the_run_page_tells_the_story_and_the_person_page_asks_why(
    e2e,
    smtp_server,
    browser_page,  # noqa: F811
):
    from playwright.sync_api import expect

    page, base = browser_page, e2e.base_url
    comments = unique("comments")
    Category.objects.create(slug=comments, name="Comments")
    person = Recipient.objects.create(
        key=unique("ann"),
        name="Ann",
        email=f"ok-{unique()}@example.com",
        preferences={"categories": {comments: {"email": False}}},
    )
    skipping = WorkflowFactory(
        definition={**chain(without_to(email_node("mail"))), "preference_category": comments}
    )
    other = WorkflowFactory(definition=chain(without_to(email_node("hello"))))
    trigger_id = fire_for(skipping, person.key, {"name": "Ann"})
    assert wait_terminal(trigger_id).status == "completed"
    log_in(page, base)

    page.goto(f"{base}/admin/triggers/triggerinstance/{trigger_id}/change/")
    row = page.locator("#story tr[data-node-id=mail]")
    expect(row).to_contain_text(f"Email skipped: Ann turned off email for {comments}")
    expect(row.locator("a", has_text="preferences")).to_have_count(1)
    shot(page, "explain-run")

    page.goto(f"{base}/admin/recipients/recipient/{person.key}/change/")
    why = page.locator("#why")
    expect(why.locator("#why-workflow")).to_have_value(skipping.key)  # their latest run's
    expect(why.locator("tr[data-node-id=mail]")).to_have_attribute("data-decision", "skipped")
    why.locator("#why-workflow").select_option(other.key)  # opens its dry run
    expect(page).to_have_url(re.compile(r"/why/"))
    hello = page.locator("#why tr[data-node-id=hello]")
    expect(hello).to_have_attribute("data-decision", "sent")
    expect(hello).to_contain_text(f"Email would be sent to {person.email}")
    shot(page, "explain-why")

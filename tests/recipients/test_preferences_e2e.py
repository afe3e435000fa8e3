"""Preferences end to end, with the stack's real processes (docs/design/recipients.md, "Preferences"): a
person who turned email off for a workflow's category gets its email node skipped, with a
`message.skipped` naming the preference, and the run completes; a required workflow still
sends; in a real browser, the `{{ preferences_url }}` of a message opens the hosted page, whose
toggles save without JavaScript, and the next run obeys them."""

from __future__ import annotations

import re

import pytest

from recipients.models import Category, Recipient
from recipients.preferences import preferences_token
from tests.conftest import sms_outbox, unique
from tests.events.support import endpoint_on
from tests.factories import WorkflowFactory, chain, email_node, sms_node
from tests.ops.test_admin_browser import browser_page, shot  # noqa: F401  (the browser fixture)
from tests.workers.helpers import wait_terminal
from triggers.services import TriggerRequest, triggers_create
from workers.models import StepExecutionLog

pytestmark = pytest.mark.e2e


def fire_for(workflow, recipient: str, payload: dict) -> str:
    """A run of `workflow` for `recipient`, through intake (its nudge reaches the workers)."""
    ((trigger, created),) = triggers_create(
        [TriggerRequest(workflow.key, unique("key"), payload, recipient=recipient)]
    )
    assert created
    return str(trigger.pk)


def category(slug: str) -> str:
    Category.objects.get_or_create(slug=slug, defaults={"name": slug.title()})
    return slug


def test_email_off_for_the_category_is_skipped_naming_the_preference_and_the_run_completes(
    e2e, receiver, smtp_server
):
    comments = category(unique("comments"))
    person = Recipient.objects.create(
        key=unique("user"), preferences={"categories": {comments: {"email": False}}}
    ).key
    workflow = WorkflowFactory(
        definition={**chain(email_node("mail"), sms_node("text")), "preference_category": comments}
    )
    _, hooks = endpoint_on(receiver, events=["message.skipped"], workflows=[workflow.key])
    address, phone = f"ok-{unique()}@example.com", "+15550177"

    trigger_id = fire_for(workflow, person, {"email": address, "phone": phone, "name": "Ada"})

    trigger = wait_terminal(trigger_id)
    assert trigger.status == "completed" and trigger.last_error == ""
    assert smtp_server.handler.to(address) == []
    assert [m for m in sms_outbox(e2e) if m["idempotency_key"] == f"{trigger_id}:text"]
    step = StepExecutionLog.objects.get(trigger_id=trigger_id, node_id="mail")
    assert step.success and step.output["preference"] == f"categories.{comments}.email"
    (hook,) = receiver.wait_for(hooks, 1)
    assert hook.event["type"] == "notiflow.message.skipped" and hook.event["subject"] == trigger_id
    message = hook.event["data"]["message"]
    assert (message["node_id"], message["rule"], message["preference"]) == (
        "mail",
        "preference",
        f"categories.{comments}.email",
    )


def test_a_required_workflow_still_sends(e2e, smtp_server):
    account = category(unique("account"))
    person = Recipient.objects.create(
        key=unique("user"),
        preferences={"channels": {"email": False}, "categories": {account: False}},
    ).key
    workflow = WorkflowFactory(
        definition={**chain(email_node("mail")), "preference_category": account, "required": True}
    )
    address = f"ok-{unique()}@example.com"

    trigger = wait_terminal(fire_for(workflow, person, {"email": address, "name": "Ada"}))

    assert trigger.status == "completed" and "skipped" not in trigger.vars["email_mail"]
    assert len(smtp_server.handler.to(address)) == 1


def test_the_page_in_a_browser_toggles_and_the_next_run_is_skipped(
    e2e,
    smtp_server,
    browser_page,  # noqa: F811
):
    page = browser_page
    news = category(unique("news"))
    Category.objects.filter(slug=news).update(name="Product news", description="What we shipped")
    person = Recipient.objects.create(key=unique("user"), name="Ada").key
    workflow = WorkflowFactory(
        definition={
            **chain(email_node("mail", body="Manage: {{ preferences_url }}")),
            "preference_category": news,
        }
    )
    address = f"ok-{unique()}@example.com"
    payload = {"email": address, "name": "Ada"}

    assert wait_terminal(fire_for(workflow, person, payload)).status == "completed"
    (mail,) = smtp_server.handler.to(address)
    link = re.search(r"/deliveries/preferences/[^/\s]+/", mail.message.get_payload())
    assert link, mail.message.get_payload()
    path = link.group(0)

    # Another of the category's workflows posts to Slack: the page offers email and Slack, by
    # their names, and nothing else (issue 44: it listed all seven channel ids).
    chat = {"id": "chat", "type": "slack", "text": "hi", "channel": "#news"}
    WorkflowFactory(definition={**chain(chat), "preference_category": news})
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(e2e.base_url + path)
    assert page.locator("h1").inner_text() == "Your notification preferences"
    switches = page.locator("fieldset:not(.quiet-hours) label")  # not the quiet hours' fields
    assert [t.strip() for t in switches.all_inner_texts()] == ["Email", "Slack"]
    for label in switches.all():  # each box stays beside its name
        box, text = label.locator("input").bounding_box(), label.bounding_box()
        assert box and text and text["height"] < 2 * box["height"] + 8, (box, text)
    email_box = page.locator(f'input[name="{news}.email"]')
    assert email_box.is_checked() and page.locator(f'input[name="{news}.slack"]').is_checked()
    email_box.uncheck()
    page.get_by_role("button", name="Save").click()
    page.wait_for_selector(".saved")
    shot(page, "preferences-page-saved")
    assert not page.locator(f'input[name="{news}.email"]').is_checked()
    assert page.locator(f'input[name="{news}.slack"]').is_checked()
    stored = Recipient.objects.get(key=person).preferences
    # Only the switch the person changed is stored: Slack keeps following the defaults.
    assert stored["categories"][news] == {"email": False}

    skipped = wait_terminal(fire_for(workflow, person, payload))
    assert skipped.status == "completed"
    assert skipped.vars["email_mail"]["preference"] == f"categories.{news}.email"
    assert len(smtp_server.handler.to(address)) == 1


def test_the_page_works_without_javascript(e2e, smtp_server, browser_page):  # noqa: F811
    page = browser_page
    news = category(unique("plain"))
    person = Recipient.objects.create(key=unique("user")).key
    workflow = WorkflowFactory(
        definition={**chain(email_node("mail")), "preference_category": news}
    )
    assert (
        wait_terminal(
            fire_for(workflow, person, {"email": f"ok-{unique()}@example.com", "name": "A"})
        ).status
        == "completed"
    )
    context = page.context.browser.new_context(java_script_enabled=False)
    plain = context.new_page()
    plain.goto(f"{e2e.base_url}/deliveries/preferences/{preferences_token(person)}/")
    plain.locator(f'input[name="{news}.email"]').uncheck()
    plain.get_by_role("button", name="Save").click()
    plain.wait_for_selector(".saved")
    context.close()

    stored = Recipient.objects.get(key=person).preferences
    assert stored["categories"][news] == {"email": False}

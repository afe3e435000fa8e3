"""The inapp node in-process (docs/design/inbox.md, "In-app inbox"): it stores one message for the
run's recipient with the step's release, never a second one for the same step, announces
message.sent, and fails permanently, naming `recipient`, in a run without one."""

from __future__ import annotations

from datetime import timedelta
from unittest import mock

import pytest
from django.utils import timezone

from events import catalog
from events.models import OutboxEvent, WebhookEndpoint
from events.services.endpoints import endpoint_create
from inbox.models import InboxMessage
from tests.factories import chain
from tests.workers.helpers import due_trigger
from triggers.models import TriggerInstance
from triggers.state import trigger_cancel
from triggers.steps import trigger_release_with
from workers.services.engine import step_execute
from workflows.markdown import markdown_safe_html
from workflows.validation import workflow_validate

pytestmark = [pytest.mark.django_db]


def inapp_node(node_id: str = "bell", **fields) -> dict:
    return {
        "id": node_id,
        "type": "inapp",
        "title": "Hello {{ payload.name }}",
        "body": "Your **invoice** for {{ payload.amount }} is ready",
        **fields,
    }


def step(trigger: TriggerInstance) -> TriggerInstance:
    TriggerInstance.objects.filter(pk=trigger.pk).update(
        available_at=timezone.now() - timedelta(days=1)
    )
    step_execute(trigger_id=str(trigger.pk), worker_id="w")
    trigger.refresh_from_db()
    return trigger


PAYLOAD = {"name": "Ada", "amount": "12 €"}


def test_an_inapp_step_stores_one_message_for_the_runs_recipient():
    node = inapp_node(
        action_url="/invoices/{{ payload.amount | size }}", data={"invoice": 7}, category="billing"
    )
    trigger = step(due_trigger(chain(node), payload=PAYLOAD, recipient="user-1"))

    assert trigger.status == "completed", trigger.last_error
    (message,) = InboxMessage.objects.all()
    assert (message.recipient, message.trigger_id, message.node_id) == (
        "user-1",
        trigger.pk,
        "bell",
    )
    assert message.title == "Hello Ada"
    assert message.body == "Your **invoice** for 12 € is ready"
    assert message.body_html == "<p>Your <strong>invoice</strong> for 12 € is ready</p>"
    assert (message.action_url, message.data, message.category) == (
        "/invoices/4",
        {"invoice": 7},
        "billing",
    )
    assert message.workflow_key == trigger.workflow.key
    assert (message.seen_at, message.read_at, message.archived_at) == (None, None, None)
    output = trigger.vars["inapp_bell"]
    assert output["message_id"] == str(message.pk)
    assert (output["channel"], output["recipient"]) == ("inapp", "user-1")


def test_the_same_step_run_again_stores_no_second_message():
    trigger = step(due_trigger(chain(inapp_node()), payload=PAYLOAD, recipient="user-1"))
    assert trigger.status == "completed"
    # As after a crash between the release's commit and the worker's ack, or an operator moving
    # the run back: the node runs once more.
    TriggerInstance.objects.filter(pk=trigger.pk).update(
        status="enqueued", current_node_id="bell", completed_at=None
    )
    trigger = step(trigger)
    assert trigger.status == "completed", trigger.last_error
    assert InboxMessage.objects.filter(trigger_id=trigger.pk).count() == 1


def test_a_step_whose_release_does_not_apply_stores_nothing():
    trigger = due_trigger(chain(inapp_node()), payload=PAYLOAD, recipient="user-1")

    def cancelled_meanwhile(**kwargs):
        trigger_cancel(trigger_id=trigger.pk, actor="test", reason="meanwhile")
        return trigger_release_with(**kwargs)

    with mock.patch("workers.services.engine.trigger_release_with", cancelled_meanwhile):
        trigger = step(trigger)
    assert trigger.status == "cancelled"
    assert not InboxMessage.objects.exists()


def test_a_run_without_a_recipient_fails_naming_it():
    trigger = step(due_trigger(chain(inapp_node()), payload=PAYLOAD))
    assert trigger.status == "failed"
    assert "no recipient" in trigger.last_error and "recipient" in trigger.last_error
    assert trigger.attempts == 1  # permanent: not retried
    assert not InboxMessage.objects.exists()


def test_an_action_url_that_is_not_http_or_a_path_fails_the_step():
    node = inapp_node(action_url="javascript:alert({{ payload.amount | size }})")
    trigger = step(due_trigger(chain(node), payload=PAYLOAD, recipient="user-1"))
    assert trigger.status == "failed"
    assert "'action_url'" in trigger.last_error
    assert not InboxMessage.objects.exists()


def test_message_sent_is_announced_on_the_inapp_channel():
    WebhookEndpoint.objects.all().delete()
    endpoint_create(url="http://127.0.0.1:9/hook", events=[catalog.MESSAGE_SENT])
    trigger = step(due_trigger(chain(inapp_node()), payload=PAYLOAD, recipient="user-1"))

    (event,) = OutboxEvent.objects.filter(trigger_id=trigger.pk)
    message = InboxMessage.objects.get()
    assert event.type == catalog.MESSAGE_SENT
    assert event.data["message"]["channel"] == "inapp"
    assert event.data["message"]["node_id"] == "bell"
    assert event.data["message"]["message_id"] == str(message.pk)
    assert event.data["message"]["recipient"] == "user-1"


@pytest.mark.parametrize(
    ("node", "field"),
    [
        (inapp_node(data=[1, 2]), "nodes[0].data"),
        (inapp_node(category="no spaces"), "nodes[0].category"),
        (inapp_node(title=""), "nodes[0].title"),
        (inapp_node(colour="red"), "nodes[0].colour"),
    ],
)
def test_the_validator_names_a_bad_field(node, field):
    problems = workflow_validate(chain(node))
    assert field in {problem.field for problem in problems}, problems


@pytest.mark.parametrize(
    ("text", "html"),
    [
        ("<script>alert(1)</script>", "<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>"),
        ("**b** and *i* and _j_", "<p><strong>b</strong> and <em>i</em> and <em>j</em></p>"),
        ("`**not bold**`", "<p><code>**not bold**</code></p>"),
        (
            "[docs](https://x.test/a?b=1&c=2)",
            '<p><a href="https://x.test/a?b=1&amp;c=2" rel="noopener nofollow">docs</a></p>',
        ),
        ("[bad](javascript:alert(1))", "<p>[bad](javascript:alert(1))</p>"),
        (  # a quote stays escaped inside the attribute: it cannot end it
            '[q](https://x.test/"onmouseover=1)',
            '<p><a href="https://x.test/&quot;onmouseover=1" rel="noopener nofollow">q</a></p>',
        ),
        ("one\ntwo\n\nthree", "<p>one<br>two</p><p>three</p>"),
    ],
)
def test_the_body_markdown_is_a_small_safe_subset(text, html):
    assert markdown_safe_html(text) == html


def test_a_person_who_turned_inapp_off_gets_no_message_and_the_step_says_which_switch():
    from recipients.models import Recipient

    Recipient.objects.create(key="quiet", preferences={"channels": {"inapp": False}})
    trigger = step(due_trigger(chain(inapp_node()), payload=PAYLOAD, recipient="quiet"))

    assert trigger.status == "completed", trigger.last_error
    assert not InboxMessage.objects.filter(recipient="quiet").exists()
    output = trigger.vars["inapp_bell"]
    assert (output["rule"], output["preference"]) == ("preference", "channels.inapp")

"""Deliveries end to end, with the stack's real processes: a marketing email carries a one-click
link that a POST to the live web process (no key, no login) turns into a marketing suppression
(with its delivery event and `message.unsubscribed`), which the next marketing run obeys by
skipping the send and completing (`message.skipped`), and a transactional one ignores; a
provider's report about a sent email reaches the trigger's deliveries and its subscribers, from
its provider only."""

from __future__ import annotations

from io import StringIO

import pytest
import requests
from django.core.management import call_command

from deliveries.models import Suppression
from tests.conftest import unique
from tests.deliveries.support import SENDGRID_PUBLIC_KEY, basic_auth, sendgrid_signed
from tests.events.support import endpoint_on
from tests.factories import WorkflowFactory, chain, email_node, sms_node
from tests.support.smtp import free_port
from tests.support.stack import Stack, wait_for
from tests.workers.helpers import fire, wait_terminal
from triggers.models import TriggerInstance
from workers.models import StepExecutionLog

pytestmark = pytest.mark.e2e


def test_one_click_unsubscribe_skips_marketing_mail_only_and_the_run_completes(
    e2e, api, receiver, smtp_server
):
    news = WorkflowFactory(
        definition={**chain(email_node("mail"), sms_node("text")), "category": "marketing"}
    )
    receipts = WorkflowFactory(definition=chain(email_node("mail")))
    _, path_hooks = endpoint_on(
        receiver,
        events=["message.skipped", "message.unsubscribed"],
        workflows=[news.key, receipts.key],
    )
    address = f"ok-{unique('reader')}@example.com"
    payload = {"email": address, "name": "Ada", "phone": "+15550142"}

    first_id = fire(api, news, payload)
    assert wait_terminal(first_id).status == "completed"
    (newsletter,) = smtp_server.handler.to(address)
    link = str(newsletter.message["List-Unsubscribe"]).strip("<>")
    assert newsletter.message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    path = link[link.index("/deliveries/unsubscribe/") :]

    page = requests.get(e2e.base_url + path, timeout=10)
    assert page.status_code == 200 and not Suppression.objects.filter(recipient=address).exists()
    for _ in range(2):  # mail clients may POST more than once
        clicked = requests.post(
            e2e.base_url + path,
            data="List-Unsubscribe=One-Click",
            headers={"Content-Type": "application/x-www-form-urlencoded"},
            timeout=10,
        )
        assert clicked.status_code == 200
    (row,) = Suppression.objects.filter(recipient=address)
    assert (row.scope, row.reason) == ("marketing", "unsubscribed")
    # Recorded against the message and announced, as a provider's unsubscribe is: once.
    (delivery,) = api.get(f"/api/triggers/{first_id}/deliveries/").json()
    assert (delivery["event"], delivery["node_id"]) == ("unsubscribed", "mail")
    (unsubscribed,) = receiver.wait_for(path_hooks, 1)
    assert unsubscribed.event["type"] == "notiflow.message.unsubscribed"
    assert unsubscribed.event["subject"] == first_id

    # The next marketing run skips the send, goes on to the SMS and completes.
    skipped_id = fire(api, news, payload)
    skipped = wait_terminal(skipped_id)
    assert skipped.status == "completed" and skipped.last_error == ""
    assert skipped.vars["email_mail"]["rule"] == "marketing" and "sms_text" in skipped.vars
    step = StepExecutionLog.objects.get(trigger_id=skipped_id, node_id="mail")
    assert step.success and step.output["suppressions"][0]["id"] == row.pk
    _, hook = receiver.wait_for(path_hooks, 2)
    assert hook.event["type"] == "notiflow.message.skipped"
    assert hook.event["subject"] == skipped_id
    assert hook.event["data"]["message"]["suppressions"][0]["reason"] == "unsubscribed"
    # Nothing failed, so the operator's retry of failed runs does not pick it.
    out = StringIO()
    call_command("retry_failed", "--workflow", news.key, stdout=out)
    assert "Retried 0 of 0 failed trigger(s)." in out.getvalue()
    assert TriggerInstance.objects.get(pk=skipped_id).status == "completed"

    receipt = wait_terminal(fire(api, receipts, {"email": address, "name": "Ada"}))
    assert receipt.status == "completed"
    assert len(smtp_server.handler.to(address)) == 2
    assert "List-Unsubscribe" not in smtp_server.handler.to(address)[1].message

    # The operator removes the entry: a worker sends the next marketing run to the recipient.
    assert api.delete(f"/api/suppressions/{row.pk}/").status_code == 204
    assert wait_terminal(fire(api, news, payload)).status == "completed"
    assert len(smtp_server.handler.to(address)) == 3


@pytest.fixture(scope="module")
def sendgrid_web(stack: Stack):
    """A second web process on the stack's database and broker that knows the provider named
    `smtp` (the stack's, which sent the message) as a SendGrid account, with SendGrid's signature
    key: the deployment whose provider really was SendGrid, as far as its reports go."""
    port = free_port()
    process = stack.web_process(
        "web-sendgrid",
        port,
        env={
            "NOTIFLOW_EMAIL_PROVIDERS": "smtp",
            "NOTIFLOW_PROVIDER_SMTP_BACKEND": "sendgrid",
            "ANYMAIL_SENDGRID_TRACKING_WEBHOOK_VERIFICATION_KEY": SENDGRID_PUBLIC_KEY,
        },
    )
    base = f"http://127.0.0.1:{port}"

    def up() -> bool:
        if process.popen.poll() is not None:
            raise AssertionError(process.log()[-3000:])
        try:
            return requests.get(f"{base}/api/health/", timeout=2).status_code in (200, 503)
        except requests.RequestException:
            return False

    wait_for(up, timeout=60, interval=0.2, message="the SendGrid-configured gunicorn")
    yield base
    process.stop()


def test_a_providers_report_reaches_the_trigger_and_its_subscribers(
    e2e, api, receiver, smtp_server, sendgrid_web
):
    workflow = WorkflowFactory(definition=chain(email_node("mail")))
    _, path = endpoint_on(receiver, events=["message.delivered"], workflows=[workflow.key])
    address = f"ok-{unique('tracked')}@example.com"
    trigger_id = fire(api, workflow, {"email": address, "name": "Ada"})
    assert wait_terminal(trigger_id).status == "completed"
    (message,) = smtp_server.handler.to(address)

    # SendGrid's delivered event (anymail's recorded payload) for the message by its Message-ID.
    report = [
        {
            "event": "delivered",
            "email": address,
            "timestamp": 1461095250,
            "sg_event_id": unique("sg"),
            "smtp-id": message.message_id,
            "response": "250 2.0.0 OK",
        }
    ]
    signed = sendgrid_signed(report)
    headers = {
        "Content-Type": "application/json",
        "Authorization": basic_auth()["HTTP_AUTHORIZATION"],
        "X-Twilio-Email-Event-Webhook-Signature": signed[
            "HTTP_X_TWILIO_EMAIL_EVENT_WEBHOOK_SIGNATURE"
        ],
        "X-Twilio-Email-Event-Webhook-Timestamp": signed[
            "HTTP_X_TWILIO_EMAIL_EVENT_WEBHOOK_TIMESTAMP"
        ],
    }
    tracking = "/deliveries/anymail/sendgrid/tracking/"
    # The stack sends through SMTP: it serves no SendGrid webhook to forge a report on.
    forged = requests.post(
        e2e.base_url + tracking, data=signed["data"], headers=headers, timeout=10
    )
    assert forged.status_code == 404
    answer = requests.post(
        sendgrid_web + tracking, data=signed["data"], headers=headers, timeout=10
    )
    assert answer.status_code == 200

    (delivery,) = api.get(f"/api/triggers/{trigger_id}/deliveries/").json()
    assert (delivery["event"], delivery["node_id"], delivery["recipient"]) == (
        "delivered",
        "mail",
        address,
    )
    (hook,) = receiver.wait_for(path, 1)
    assert hook.event["type"] == "notiflow.message.delivered"
    assert hook.event["data"]["message"]["to"] == address

"""Deliveries end to end, with the stack's real processes: a marketing email carries a one-click
link that a POST to the live web process (no key, no login) turns into a marketing suppression,
which the next marketing run obeys and a transactional one ignores; a provider's report about a
sent email reaches the trigger's deliveries and its subscribers, from its provider only."""

from __future__ import annotations

import pytest
import requests

from tests.conftest import unique
from tests.deliveries.support import SENDGRID_PUBLIC_KEY, basic_auth, sendgrid_signed
from tests.events.support import endpoint_on
from tests.factories import WorkflowFactory, chain, email_node
from tests.support.smtp import free_port
from tests.support.stack import Stack, wait_for
from tests.workers.helpers import fire, wait_terminal
from triggers.models import TriggerInstance
from workers.models import Suppression

pytestmark = pytest.mark.e2e


def test_one_click_unsubscribe_stops_marketing_mail_only(e2e, api, operator, smtp_server):
    news = WorkflowFactory(definition={**chain(email_node("mail")), "category": "marketing"})
    receipts = WorkflowFactory(definition=chain(email_node("mail")))
    address = f"ok-{unique('reader')}@example.com"

    assert wait_terminal(fire(api, news, {"email": address, "name": "Ada"})).status == "completed"
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

    stopped = wait_terminal(fire(api, news, {"email": address, "name": "Ada"}))
    assert stopped.status == "failed" and stopped.last_error.startswith("suppressed:")
    receipt = wait_terminal(fire(api, receipts, {"email": address, "name": "Ada"}))
    assert receipt.status == "completed"
    assert len(smtp_server.handler.to(address)) == 2
    assert "List-Unsubscribe" not in smtp_server.handler.to(address)[1].message

    # The operator removes the entry and retries the stopped run: a worker sends it.
    assert api.delete(f"/api/suppressions/{row.pk}/").status_code == 204
    retried = operator.post(f"/admin/triggers/triggerinstance/{stopped.pk}/retry/")
    assert retried.status_code == 302
    wait_for(
        lambda: TriggerInstance.objects.get(pk=stopped.pk).status == "completed",
        timeout=30,
        message="the retried run to complete",
    )
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
    _, path = endpoint_on(receiver, events=["message.delivered"])
    workflow = WorkflowFactory(definition=chain(email_node("mail")))
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

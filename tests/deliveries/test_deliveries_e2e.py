"""Deliveries end to end, with the stack's real processes: a marketing email carries a one-click
link that a POST to the live web process (no key, no login) turns into a marketing suppression,
which the next marketing run obeys and a transactional one ignores; a provider's report about a
sent email reaches the trigger's deliveries and its subscribers."""

from __future__ import annotations

import json

import pytest
import requests

from tests.conftest import unique
from tests.deliveries.support import basic_auth
from tests.events.support import endpoint_on
from tests.factories import WorkflowFactory, chain, email_node
from tests.support.stack import wait_for
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


def test_a_providers_report_reaches_the_trigger_and_its_subscribers(
    e2e, api, receiver, smtp_server
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
    auth = basic_auth()["HTTP_AUTHORIZATION"]
    answer = requests.post(
        e2e.base_url + "/deliveries/anymail/sendgrid/tracking/",
        data=json.dumps(report),
        headers={"Content-Type": "application/json", "Authorization": auth},
        timeout=10,
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

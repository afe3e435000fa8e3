"""Providers' tracking webhooks through anymail's real views (docs/design/deliveries.md, "Deliveries"): the
recorded payloads anymail's own tests use (Amazon SES through SNS, SendGrid), checked by anymail's
basic auth (and SendGrid's signature), matched to their send, stored once, suppressing after bad
news, announced. Forged reports (docs/security/providers.md, "Provider reports"):
tests/deliveries/test_forged_reports.py."""

from __future__ import annotations

import json
import uuid

import pytest

from deliveries.models import DeliveryEvent, Suppression
from events.models import OutboxEvent, WebhookEndpoint
from events.services.endpoints import endpoint_create
from tests.deliveries.support import basic_auth, sendgrid_signed, sent, sns_signed

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("esps")]

SES = "/deliveries/anymail/amazon_ses/tracking/"
SENDGRID = "/deliveries/anymail/sendgrid/tracking/"


@pytest.fixture(autouse=True)
def subscriber():
    """One endpoint for every message event (those committed by end-to-end tests set aside)."""
    WebhookEndpoint.objects.all().delete()
    return endpoint_create(url="http://127.0.0.1:9/hook", events=["*"])


def ses_bounce(message_id: str, sns_id: str = "19ba9823-d7f2-53c1-860e-cb10e0d13dfc") -> dict:
    """anymail's tests/test_amazon_ses_webhooks.py test_bounce_event, with our ids."""
    event = {
        "notificationType": "Bounce",
        "bounce": {
            "bounceType": "Permanent",
            "reportingMTA": "dns; email.example.com",
            "bouncedRecipients": [
                {
                    "emailAddress": "Jane@example.com",
                    "status": "5.1.1",
                    "action": "failed",
                    "diagnosticCode": "smtp; 550 5.1.1 <jane@example.com>... User unknown",
                }
            ],
            "bounceSubType": "General",
            "timestamp": "2016-01-27T14:59:44.101Z",
            "feedbackId": "00000138111222aa-44455566-cccc-cccc-cccc-ddddaaaa068a-000000",
        },
        "mail": {
            "timestamp": "2016-01-27T14:59:38.237Z",
            "source": "john@example.com",
            "messageId": message_id,
            "destination": ["jane@example.com"],
        },
    }
    return {
        "Type": "Notification",
        "MessageId": sns_id,
        "TopicArn": "arn:aws:sns:us-east-1:1234567890:SES_Events",
        "Message": json.dumps(event) + "\n",
        "Timestamp": "2018-03-26T17:58:59.675Z",
    }


def post_sns(client, payload: dict, *, signed: bool = True, **auth):
    """`payload` posted as SNS posts it, signed with the tests' SNS key unless `signed` is off."""
    return client.post(
        SES,
        data=json.dumps(sns_signed(payload) if signed else payload),
        content_type="text/plain; charset=UTF-8",
        HTTP_X_AMZ_SNS_MESSAGE_ID=payload["MessageId"],
        HTTP_X_AMZ_SNS_MESSAGE_TYPE=payload["Type"],
        **auth,
    )


def test_an_ses_hard_bounce_is_recorded_suppresses_and_is_announced(client):
    message_id = f"0000{uuid.uuid4().hex}-000000"
    trigger = sent(message_id, to="Jane Doe <jane@example.com>, other@example.com")

    response = post_sns(client, ses_bounce(message_id), **basic_auth())

    assert response.status_code == 200
    (row,) = DeliveryEvent.objects.filter(trigger_id=trigger.pk)
    assert (row.node_id, row.event, row.recipient, row.provider) == (
        "mail",
        "bounced",
        "Jane@example.com",
        "ses",
    )
    assert "User unknown" in row.description
    suppression = Suppression.objects.get(channel="email", recipient="jane@example.com")
    assert (suppression.reason, suppression.scope) == ("bounced", "all")
    (announced,) = OutboxEvent.objects.filter(trigger_id=trigger.pk, type="message.bounced")
    assert announced.data["message"]["to"] == "Jane@example.com"
    assert announced.data["trigger"]["id"] == str(trigger.pk)


def test_a_redelivered_report_is_stored_once(client):
    message_id = f"0000{uuid.uuid4().hex}-000000"
    trigger = sent(message_id, to="jane@example.com")
    payload = ses_bounce(message_id)

    assert post_sns(client, payload, **basic_auth()).status_code == 200
    assert post_sns(client, payload, **basic_auth()).status_code == 200

    assert DeliveryEvent.objects.filter(trigger_id=trigger.pk).count() == 1
    assert OutboxEvent.objects.filter(trigger_id=trigger.pk).count() == 1


def test_a_report_about_an_unknown_message_is_acknowledged_and_not_stored(client):
    before = DeliveryEvent.objects.count()

    response = post_sns(client, ses_bounce("no-such-message"), **basic_auth())

    assert response.status_code == 200
    assert DeliveryEvent.objects.count() == before
    assert not Suppression.objects.filter(recipient="jane@example.com").exists()


@pytest.mark.parametrize(
    ("auth", "status"),
    [({}, 401), ({"HTTP_AUTHORIZATION": "Basic d3Jvbmc6d3Jvbmc="}, 400)],
    ids=["no credentials", "wrong credentials"],
)
def test_a_report_without_the_webhook_secret_changes_nothing(client, auth, status):
    message_id = f"0000{uuid.uuid4().hex}-000000"
    trigger = sent(message_id, to="jane@example.com")

    assert post_sns(client, ses_bounce(message_id), **auth).status_code == status

    assert not DeliveryEvent.objects.filter(trigger_id=trigger.pk).exists()
    assert not Suppression.objects.filter(recipient="jane@example.com").exists()


def test_sendgrid_events_are_matched_by_anymail_id_and_by_our_key(client):
    """anymail's tests/test_sendgrid_webhooks.py delivered and bounce events: one matched by the
    id anymail sent as a custom arg, one by the idempotency key echoed from our metadata."""
    by_id = sent(str(uuid.uuid4()), to="recipient@example.com", provider="sendgrid")
    by_key = sent("", to="noreply@example.com", provider="sendgrid")
    events = [
        {
            "ip": "167.89.17.173",
            "response": "250 2.0.0 OK 1461095248 m143si2210036ioe.159 - gsmtp ",
            "sg_event_id": "nOSv8m0eTQ-vxvwNwt3fZQ",
            "sg_message_id": "wrfRRvF7Q0GgwUo2CvDmEA.filter0425p1mdw1.13037.57168B4A1D.0",
            "event": "delivered",
            "email": "recipient@example.com",
            "timestamp": 1461095250,
            "anymail_id": by_id.sends.get().provider_message_id,
        },
        {
            "status": "5.1.1",
            "sg_event_id": f"lC0Rc-{uuid.uuid4().hex[:8]}",
            "reason": "550 5.1.1 The email account that you tried to reach does not exist.",
            "event": "bounce",
            "email": "NoReply@example.com",
            "timestamp": 1461095250,
            "type": "bounce",
            "notiflow_key": f"{by_key.pk}:mail",
        },
    ]

    response = client.post(SENDGRID, **sendgrid_signed(events), **basic_auth())

    assert response.status_code == 200
    delivered = DeliveryEvent.objects.get(trigger_id=by_id.pk)
    assert (delivered.event, delivered.provider) == ("delivered", "sendgrid")
    bounced = DeliveryEvent.objects.get(trigger_id=by_key.pk)
    assert bounced.event == "bounced" and "does not exist" in bounced.description
    assert Suppression.objects.filter(recipient="noreply@example.com", reason="bounced").exists()
    assert set(
        OutboxEvent.objects.filter(trigger_id__in=[by_id.pk, by_key.pk]).values_list(
            "type", flat=True
        )
    ) == {"message.delivered", "message.bounced"}


def test_an_ses_complaint_suppresses_the_recipient(client):
    message_id = f"0000{uuid.uuid4().hex}-000000"
    trigger = sent(message_id, to="richard@example.com")
    complaint = {
        "notificationType": "Complaint",
        "complaint": {
            "userAgent": "AnyCompany Feedback Loop (V0.01)",
            "complainedRecipients": [{"emailAddress": "richard@example.com"}],
            "complaintFeedbackType": "abuse",
        },
        "mail": {"messageId": message_id, "destination": ["richard@example.com"]},
    }
    payload = {
        "Type": "Notification",
        "MessageId": str(uuid.uuid4()),
        "Message": json.dumps(complaint),
        "Timestamp": "2018-03-26T17:58:59.675Z",
    }

    assert post_sns(client, payload, **basic_auth()).status_code == 200

    assert DeliveryEvent.objects.get(trigger_id=trigger.pk).event == "complained"
    assert Suppression.objects.get(recipient="richard@example.com").reason == "complained"


def test_the_trigger_shows_its_deliveries_in_the_api(client, api_client):
    message_id = f"0000{uuid.uuid4().hex}-000000"
    trigger = sent(message_id, to="jane@example.com")
    post_sns(client, ses_bounce(message_id), **basic_auth())

    response = api_client.get(f"/api/triggers/{trigger.pk}/deliveries/")

    assert response.status_code == 200
    (row,) = response.json()
    assert (row["event"], row["node_id"], row["provider"]) == ("bounced", "mail", "ses")
    assert row["provider_message_id"] == message_id
    assert api_client.get(f"/api/triggers/{uuid.uuid4()}/deliveries/").status_code == 404

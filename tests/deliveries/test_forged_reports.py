"""Forged and misrouted provider reports (docs/security/providers.md, "Provider reports"; issue 31): a
report changes state only for a recipient its send went to, and only when its provider accepted
that send (else it is stored as an unmatched report and logged); only the tracking webhooks of
configured ESPs are served, with their signature where the ESP signs; a stranger's request is a
4xx without a traceback, never a 500."""

from __future__ import annotations

import importlib.util
import json
import logging
import uuid
from datetime import timedelta

import pytest
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from django.test import Client
from django.utils import timezone
from twilio.request_validator import RequestValidator

from deliveries.models import DeliveryEvent, Suppression, UnmatchedReport
from tests.deliveries.support import basic_auth, sendgrid_signed, sent, sns_signed
from tests.deliveries.test_tracking_webhooks import SENDGRID, post_sns, ses_bounce
from tests.support.smtp import free_port
from tests.workers.history import backdate, trigger_with_history
from tests.workers.test_db_roles import as_role
from workers.services.retention import retention_purge
from workers.services.roles import db_role_setup

pytestmark = pytest.mark.django_db

VICTIM = "ceo@victim-corp.com"


def sendgrid_bounce(email: str, **match: str) -> list[dict]:
    return [
        {
            "event": "bounce",
            "type": "bounce",
            "email": email,
            "status": "5.1.1",
            "reason": "550 5.1.1 no such user",
            "timestamp": 1461095250,
            "sg_event_id": uuid.uuid4().hex,
            **match,
        }
    ]


def assert_unmatched(trigger, reason: str) -> None:
    assert not DeliveryEvent.objects.filter(trigger_id=trigger.pk).exists()
    (row,) = UnmatchedReport.objects.filter(trigger_id=trigger.pk)
    assert reason in row.reason
    assert not Suppression.objects.filter(recipient=VICTIM).exists()


def test_a_report_naming_another_recipient_suppresses_no_one(client, esps, caplog):
    message_id = f"0000{uuid.uuid4().hex}-000000"
    trigger = sent(message_id, to="customer@example.com")
    bounce = ses_bounce(message_id)
    event = json.loads(bounce["Message"])
    event["bounce"]["bouncedRecipients"][0]["emailAddress"] = VICTIM
    bounce["Message"] = json.dumps(event)

    with caplog.at_level(logging.WARNING, logger="deliveries.services"):
        assert post_sns(client, bounce, **basic_auth()).status_code == 200
        assert post_sns(client, bounce, **basic_auth()).status_code == 200  # stored once

    assert_unmatched(trigger, "not one the send went to")
    assert [r for r in caplog.records if VICTIM in r.getMessage()]


def test_operators_see_unmatched_reports_in_the_admin(client, admin_client, esps):
    message_id = f"0000{uuid.uuid4().hex}-000000"
    trigger = sent(message_id, to="customer@example.com", provider="sendgrid")
    post_sns(client, ses_bounce(message_id), **basic_auth())
    row = UnmatchedReport.objects.get(trigger_id=trigger.pk)

    listed = admin_client.get("/admin/deliveries/unmatchedreport/")
    shown = admin_client.get(f"/admin/deliveries/unmatchedreport/{row.pk}/change/")

    assert listed.status_code == 200 and b"sent through sendgrid" in listed.content
    assert shown.status_code == 200 and b"Jane@example.com" in shown.content
    assert admin_client.get("/admin/deliveries/unmatchedreport/add/").status_code == 403


def test_a_sendgrid_report_about_a_message_sent_by_smtp_changes_nothing(client, esps):
    """Issue 31: a SendGrid-format bounce matched by the idempotency key of a send that went
    out through SMTP, naming its very recipient: still not SendGrid's to report on."""
    trigger = sent("", to=VICTIM, provider="smtp")

    events = sendgrid_bounce(VICTIM, notiflow_key=f"{trigger.pk}:mail")
    response = client.post(SENDGRID, **sendgrid_signed(events), **basic_auth())

    assert response.status_code == 200
    assert_unmatched(trigger, "sent through smtp")


def test_a_sendgrid_report_about_an_ses_send_changes_nothing(client, esps):
    message_id = str(uuid.uuid4())
    trigger = sent(message_id, to=VICTIM, provider="ses")

    events = sendgrid_bounce(VICTIM, anymail_id=message_id)
    assert client.post(SENDGRID, **sendgrid_signed(events), **basic_auth()).status_code == 200

    assert_unmatched(trigger, "sent through ses")


@pytest.mark.parametrize(
    "signed",
    [
        pytest.param(lambda events: {"data": json.dumps(events)}, id="unsigned"),
        pytest.param(
            lambda events: sendgrid_signed(events, key=ec.generate_private_key(ec.SECP256R1())),
            id="signed by another key",
        ),
    ],
)
def test_a_sendgrid_report_without_its_signature_is_400_and_changes_nothing(client, esps, signed):
    trigger = sent("", to=VICTIM, provider="sendgrid")
    events = sendgrid_bounce(VICTIM, notiflow_key=f"{trigger.pk}:mail")

    response = client.post(
        SENDGRID, **{"content_type": "application/json", **signed(events)}, **basic_auth()
    )

    assert response.status_code == 400
    assert not DeliveryEvent.objects.filter(trigger_id=trigger.pk).exists()
    assert not Suppression.objects.filter(recipient=VICTIM).exists()


def test_sendgrid_is_not_served_without_its_signature_key(client, esps, settings):
    settings.ANYMAIL = {"WEBHOOK_SECRET": settings.ANYMAIL["WEBHOOK_SECRET"]}
    events = sendgrid_bounce(VICTIM)

    assert client.post(SENDGRID, **sendgrid_signed(events), **basic_auth()).status_code == 404


@pytest.mark.parametrize(
    "path",
    [
        "/deliveries/anymail/postmark/tracking/",
        "/deliveries/anymail/mailgun/tracking/",
        "/deliveries/anymail/amazon_ses/inbound/",
        "/deliveries/anymail/sendgrid/inbound/",
        "/deliveries/anymail/mandrill/",
        "/deliveries/anymail/nobody/tracking/",
    ],
)
def test_only_the_tracking_webhooks_of_configured_esps_are_served(client, esps, path):
    assert client.post(path, data="{}", content_type="application/json").status_code == 404


def test_no_tracking_webhook_is_served_without_the_webhook_secret(client, esps, settings):
    settings.ANYMAIL = {}
    message_id = f"0000{uuid.uuid4().hex}-000000"

    assert post_sns(client, ses_bounce(message_id)).status_code == 404


# --- Amazon SES: SNS signatures (deliveries/sns.py) ---------------------------------------------


def ses_post(client, message: dict):
    return client.post(
        "/deliveries/anymail/amazon_ses/tracking/",
        data=json.dumps(message),
        content_type="text/plain; charset=UTF-8",
        HTTP_X_AMZ_SNS_MESSAGE_ID=message["MessageId"],
        HTTP_X_AMZ_SNS_MESSAGE_TYPE=message["Type"],
        **basic_auth(),
    )


@pytest.mark.parametrize(
    "forge",
    [
        pytest.param(lambda bounce: bounce, id="unsigned"),
        pytest.param(
            lambda bounce: sns_signed(
                bounce, key=rsa.generate_private_key(public_exponent=65537, key_size=2048)
            ),
            id="signed by another key",
        ),
        pytest.param(
            lambda bounce: {**sns_signed(bounce), "TopicArn": "arn:aws:sns:us-east-1:1:other"},
            id="changed after signing",
        ),
        pytest.param(
            lambda bounce: sns_signed(bounce, url="https://evil.example.com/cert.pem"),
            id="certificate elsewhere",
        ),
        pytest.param(lambda bounce: {**sns_signed(bounce), "SignatureVersion": "3"}, id="v3"),
    ],
)
def test_an_ses_report_without_a_valid_sns_signature_is_400_and_changes_nothing(
    client, esps, forge, caplog
):
    message_id = f"0000{uuid.uuid4().hex}-000000"
    trigger = sent(message_id, to="jane@example.com")

    response = ses_post(client, forge(ses_bounce(message_id)))

    assert response.status_code == 400
    assert not DeliveryEvent.objects.filter(trigger_id=trigger.pk).exists()
    assert not Suppression.objects.filter(recipient="jane@example.com").exists()
    no_traceback(caplog)


def test_an_inbound_message_posted_to_the_ses_tracking_url_is_400(esps, caplog):
    inbound = {
        "Type": "Notification",
        "MessageId": str(uuid.uuid4()),
        "TopicArn": "arn:aws:sns:us-east-1:1234567890:SES_Inbound",
        "Message": json.dumps({"notificationType": "Received", "mail": {}, "receipt": {}}),
        "Timestamp": "2018-03-26T17:58:59.675Z",
    }

    response = ses_post(Client(raise_request_exception=False), sns_signed(inbound))

    assert response.status_code == 400
    no_traceback(caplog)


def test_an_ses_report_signed_with_signature_version_2_is_recorded(client, esps):
    message_id = f"0000{uuid.uuid4().hex}-000000"
    trigger = sent(message_id, to="jane@example.com")

    assert ses_post(client, sns_signed(ses_bounce(message_id), version="2")).status_code == 200

    assert DeliveryEvent.objects.get(trigger_id=trigger.pk).event == "bounced"


def test_an_unreachable_sns_certificate_is_503_which_sns_retries(client, esps, caplog):
    message_id = f"0000{uuid.uuid4().hex}-000000"
    trigger = sent(message_id, to="jane@example.com")
    nowhere = f"http://127.0.0.1:{free_port()}/SimpleNotificationService-gone.pem"

    response = ses_post(client, sns_signed(ses_bounce(message_id), url=nowhere))

    assert response.status_code == 503
    assert not DeliveryEvent.objects.filter(trigger_id=trigger.pk).exists()
    no_traceback(caplog)


def test_sns_signatures_can_be_left_unchecked(client, esps, settings):
    settings.NOTIFLOW_SNS_VERIFY_SIGNATURES = False
    message_id = f"0000{uuid.uuid4().hex}-000000"
    trigger = sent(message_id, to="jane@example.com")

    assert ses_post(client, ses_bounce(message_id)).status_code == 200

    assert DeliveryEvent.objects.filter(trigger_id=trigger.pk).exists()


# ESPs that sign, as a deployment would configure them: the provider and the ESP's key.
SIGNING_ESPS = {
    "mailgun": ("anymail.backends.mailgun.EmailBackend", "MAILGUN_WEBHOOK_SIGNING_KEY"),
    "mailersend": ("anymail.backends.mailersend.EmailBackend", "MAILERSEND_SIGNING_SECRET"),
    "postal": ("anymail.backends.postal.EmailBackend", "POSTAL_WEBHOOK_KEY"),
    "unisender_go": ("anymail.backends.unisender_go.EmailBackend", "UNISENDER_GO_API_KEY"),
    "mandrill": ("anymail.backends.mandrill.EmailBackend", "MANDRILL_WEBHOOK_KEY"),
}


@pytest.fixture
def signing_esps(settings):
    settings.NOTIFLOW_EMAIL_PROVIDERS = list(SIGNING_ESPS)
    settings.NOTIFLOW_PROVIDER_SETTINGS = {
        name: {"backend": backend, "options": {}} for name, (backend, _) in SIGNING_ESPS.items()
    }


def no_traceback(caplog) -> None:
    assert not [r for r in caplog.records if r.exc_info], caplog.text


@pytest.mark.parametrize("esp", list(SIGNING_ESPS))
def test_a_signing_esp_without_its_key_is_not_served(esp, signing_esps, caplog):
    client = Client(raise_request_exception=False)

    response = client.post(f"/deliveries/anymail/{esp}/tracking/", data={})

    assert response.status_code == 404
    assert SIGNING_ESPS[esp][1] in caplog.text
    no_traceback(caplog)


@pytest.mark.skipif(importlib.util.find_spec("svix") is not None, reason="svix is installed")
def test_resend_without_the_svix_package_is_not_served(settings, caplog):
    """anymail checks Resend's signature with svix, an extra Notiflow does not install."""
    settings.NOTIFLOW_EMAIL_PROVIDERS = ["resend"]
    settings.ANYMAIL = {**settings.ANYMAIL, "RESEND_SIGNING_SECRET": "whsec_dGVzdA=="}
    client = Client(raise_request_exception=False)

    response = client.post("/deliveries/anymail/resend/tracking/", data={}, **basic_auth())

    assert response.status_code == 404
    assert "svix" in caplog.text
    no_traceback(caplog)


@pytest.mark.parametrize("esp", list(SIGNING_ESPS))
def test_a_signing_esp_answers_a_request_without_credentials_400(
    esp, signing_esps, settings, caplog
):
    settings.ANYMAIL = {
        **settings.ANYMAIL,
        **{key: "c2lnbmluZy1rZXk=" for _, key in SIGNING_ESPS.values()},
    }
    client = Client(raise_request_exception=False)

    for body in ({}, {"mandrill_events": "[]", "signature": "x"}):
        response = client.post(f"/deliveries/anymail/{esp}/tracking/", data=body)
        assert response.status_code == 400, response.content

    no_traceback(caplog)


@pytest.mark.parametrize("body", ["[]", "null", "not json", '{"Type": 1}'])
def test_amazon_ses_answers_a_malformed_body_400(esps, body, caplog):
    client = Client(raise_request_exception=False)

    response = client.post(
        "/deliveries/anymail/amazon_ses/tracking/",
        data=body,
        content_type="text/plain",
        HTTP_X_AMZ_SNS_MESSAGE_TYPE="Notification",
        **basic_auth(),
    )

    assert response.status_code == 400
    no_traceback(caplog)


BASIC_AUTH_ESPS = {
    "postmark": "anymail.backends.postmark.EmailBackend",
    "brevo": "anymail.backends.brevo.EmailBackend",
    "mailjet": "anymail.backends.mailjet.EmailBackend",
    "sparkpost": "anymail.backends.sparkpost.EmailBackend",
}


@pytest.mark.parametrize("esp", list(BASIC_AUTH_ESPS))
@pytest.mark.parametrize("body", ["null", "1", "not json", '[1, "a"]'])
def test_an_unreadable_report_with_the_basic_auth_is_400(settings, esp, body, caplog):
    settings.NOTIFLOW_EMAIL_PROVIDERS = [esp]
    settings.NOTIFLOW_PROVIDER_SETTINGS = {esp: {"backend": BASIC_AUTH_ESPS[esp], "options": {}}}
    client = Client(raise_request_exception=False)

    response = client.post(
        f"/deliveries/anymail/{esp}/tracking/",
        data=body,
        content_type="application/json",
        **basic_auth(),
    )

    assert response.status_code == 400
    no_traceback(caplog)


# --- Twilio ------------------------------------------------------------------------------------
TWILIO = "/deliveries/twilio/status/"


@pytest.fixture
def twilio_accounts(settings):
    """Two Twilio providers, each with its own account's auth token."""
    settings.NOTIFLOW_PUBLIC_URL = "https://notify.example.com"
    settings.NOTIFLOW_SMS_PROVIDERS = ["twilio", "backup"]
    settings.NOTIFLOW_PROVIDER_SETTINGS = {
        "twilio": {"backend": "twilio", "options": {"auth_token": "token-a"}},
        "backup": {"backend": "twilio", "options": {"auth_token": "token-b"}},
    }


def twilio_post(client, params: dict[str, str], token: str):
    signature = RequestValidator(token).compute_signature(
        "https://notify.example.com" + TWILIO, params
    )
    return client.post(TWILIO, params, HTTP_X_TWILIO_SIGNATURE=signature)


def stopped(sid: str, to: str) -> dict[str, str]:
    return {"MessageSid": sid, "MessageStatus": "failed", "ErrorCode": "21610", "To": to}


def test_a_signed_twilio_report_naming_another_number_suppresses_no_one(client, twilio_accounts):
    sid = "SM" + uuid.uuid4().hex
    trigger = sent(sid, to="+15550100", provider="twilio", channel="sms")

    assert twilio_post(client, stopped(sid, "+15559999"), "token-a").status_code == 200

    assert not DeliveryEvent.objects.filter(trigger_id=trigger.pk).exists()
    assert UnmatchedReport.objects.get(trigger_id=trigger.pk).recipient == "+15559999"
    assert not Suppression.objects.filter(channel="sms").filter(recipient="+15559999").exists()


def test_a_twilio_report_signed_by_another_account_changes_nothing(client, twilio_accounts):
    sid = "SM" + uuid.uuid4().hex
    trigger = sent(sid, to="+15550101", provider="twilio", channel="sms")

    assert twilio_post(client, stopped(sid, "+15550101"), "token-b").status_code == 200

    assert "sent through twilio" in UnmatchedReport.objects.get(trigger_id=trigger.pk).reason
    assert not Suppression.objects.filter(channel="sms", recipient="+15550101").exists()

    assert twilio_post(client, stopped(sid, "+15550101"), "token-a").status_code == 200
    assert DeliveryEvent.objects.get(trigger_id=trigger.pk).event == "unsubscribed"


def test_the_twilio_callback_is_not_served_without_a_twilio_provider(client, settings):
    settings.NOTIFLOW_SMS_PROVIDERS = []
    settings.NOTIFLOW_SMS_BACKEND = "console"
    settings.TWILIO_AUTH_TOKEN = "token-a"

    assert twilio_post(client, stopped("SM1", "+15550100"), "token-a").status_code == 404


# --- Retention ---------------------------------------------------------------------------------


def test_unmatched_reports_leave_with_their_trigger():
    trigger = trigger_with_history(status="completed")
    backdate(trigger, timezone.now() - timedelta(days=40))
    kept = sent("SM-kept", to="+15550100", provider="twilio", channel="sms")
    for owner in (trigger, kept):
        UnmatchedReport.objects.create(
            trigger_id=owner.pk,
            node_id="mail",
            channel="email",
            reporter="SendGrid",
            event="bounced",
            reason="the recipient is not one the send went to",
            dedupe_key=uuid.uuid4().hex,
        )

    retention_purge(older_than=timedelta(days=30))

    assert not UnmatchedReport.objects.filter(trigger_id=trigger.pk).exists()
    assert UnmatchedReport.objects.filter(trigger_id=kept.pk).exists()


def test_the_web_role_stores_an_unmatched_report(client, esps):
    """The web process's least-privilege role (manage.py setup_db_roles) may write one."""
    role = f"nf_test_web_{uuid.uuid4().hex[:8]}"
    db_role_setup(kind="web", name=role, password=None, generate_password=False)
    message_id = f"0000{uuid.uuid4().hex}-000000"
    trigger = sent(message_id, to="customer@example.com")

    with as_role(role):
        assert post_sns(client, ses_bounce(message_id), **basic_auth()).status_code == 200

    assert UnmatchedReport.objects.filter(trigger_id=trigger.pk).exists()

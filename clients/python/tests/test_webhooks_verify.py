"""`notiflow_client.webhooks.verify` against requests signed by the Standard Webhooks reference
library (not by our own code): the event back when the signature and timestamp hold, a
`WebhookVerificationError` for anything else."""

from __future__ import annotations

import base64
import json
import time
from datetime import datetime, timezone

import pytest
from standardwebhooks.webhooks import Webhook

from notiflow_client.webhooks import WebhookVerificationError, verify

SECRET = "whsec_" + base64.b64encode(b"k" * 32).decode()
EVENT = {"id": "3f1c", "type": "notiflow.trigger.completed", "subject": "0b6f", "data": {}}
BODY = json.dumps(EVENT).encode()


def signed(body: bytes = BODY, secret: str = SECRET, at: float | None = None) -> dict[str, str]:
    sent = time.time() if at is None else at
    signature = Webhook(secret).sign(
        "msg_1", datetime.fromtimestamp(sent, tz=timezone.utc), body.decode()
    )
    return {
        "webhook-id": "msg_1",
        "webhook-timestamp": str(int(sent)),
        "webhook-signature": signature,
    }


def test_a_signed_request_gives_its_event():
    assert verify(BODY, signed(), SECRET) == EVENT
    assert verify(BODY.decode(), signed(), SECRET) == EVENT  # the body as text too


def test_headers_are_read_in_any_case_and_any_matching_signature_of_several_counts():
    headers = {name.title(): value for name, value in signed().items()}
    headers["Webhook-Signature"] = "v1,bm90IGl0 " + headers["Webhook-Signature"]  # a rotation
    assert verify(BODY, headers, SECRET)["id"] == "3f1c"


@pytest.mark.parametrize(
    "tamper",
    [
        lambda headers: headers.update({"webhook-id": "msg_2"}),
        lambda headers: headers.update({"webhook-signature": "v1,AAAA"}),
        lambda headers: headers.update(
            {"webhook-signature": headers["webhook-signature"].replace("v1,", "v2,")}
        ),
        lambda headers: headers.pop("webhook-signature"),
        lambda headers: headers.update({"webhook-timestamp": "soon"}),
    ],
)
def test_a_changed_or_missing_header_is_refused(tamper):
    headers = signed()
    tamper(headers)
    with pytest.raises(WebhookVerificationError):
        verify(BODY, headers, SECRET)


def test_a_changed_body_or_another_secret_is_refused():
    with pytest.raises(WebhookVerificationError, match="signature"):
        verify(BODY + b" ", signed(), SECRET)
    other = "whsec_" + base64.b64encode(b"o" * 32).decode()
    with pytest.raises(WebhookVerificationError, match="signature"):
        verify(BODY, signed(), other)


def test_a_timestamp_over_five_minutes_away_is_refused_either_way():
    now = time.time()
    assert verify(BODY, signed(at=now - 290), SECRET, now=now) == EVENT
    for at in (now - 301, now + 301):
        with pytest.raises(WebhookVerificationError, match="timestamp"):
            verify(BODY, signed(at=at), SECRET, now=now)


def test_a_body_that_is_not_an_object_is_refused_even_signed():
    with pytest.raises(WebhookVerificationError, match="object"):
        verify(b"[1]", signed(b"[1]"), SECRET)

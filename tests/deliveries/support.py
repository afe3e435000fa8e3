"""Sends to report on, made in-process: a trigger and its ledger row as the engine leaves it."""

from __future__ import annotations

import base64

from django.conf import settings

from tests.factories import chain, email_node, sms_node
from tests.workers.helpers import due_trigger
from triggers.models import TriggerInstance
from workers.models import SendLedger


def sent(
    provider_message_id: str, *, provider: str = "ses", channel: str = "email"
) -> TriggerInstance:
    """A trigger whose one send node was sent, with the provider's message id recorded."""
    node = email_node("mail") if channel == "email" else sms_node("mail")
    trigger = due_trigger(chain(node))
    SendLedger.objects.create(
        trigger=trigger,
        node_id="mail",
        idempotency_key=f"{trigger.pk}:mail",
        channel=channel,
        status="sent",
        provider=provider,
        provider_message_id=provider_message_id,
        providers=[provider],
    )
    return trigger


def basic_auth() -> dict[str, str]:
    secret = settings.ANYMAIL["WEBHOOK_SECRET"]
    return {"HTTP_AUTHORIZATION": "Basic " + base64.b64encode(secret.encode()).decode()}

"""Recording what providers report (docs/design/deliveries.md, "Deliveries"): find the send a report is
about, check that its provider accepted that send and that its recipient is one the send went to,
store it once, suppress the recipient after bad news, and announce it (rule 10), all in one
transaction. The anymail receiver and the Twilio view only translate their provider's words."""

from __future__ import annotations

import hashlib
import json
import logging
import re
import uuid
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from common.metrics import delivery_event_observe
from deliveries.models import DeliveryEvent, SuppressionReason, SuppressionScope, UnmatchedReport
from deliveries.suppression import Unsubscribing, recipient_normalise, suppression_add
from events import catalog as events
from events.services.outbox import events_record
from recipients.preferences import category_switches_set
from triggers.announce import announcement
from triggers.models import TriggerInstance
from waits.messages import message_events_post
from workers.models import SendLedger
from workflows.definition import preference_category_of
from workflows.nodes import channel_node_type

logger = logging.getLogger(__name__)

# The outbox event of each delivery event type (events.catalog); `queued` and `sent` add
# nothing to message.sent and are only stored.
ANNOUNCED = {
    "delivered": events.MESSAGE_DELIVERED,
    "deferred": events.MESSAGE_DEFERRED,
    "bounced": events.MESSAGE_BOUNCED,
    "rejected": events.MESSAGE_FAILED,
    "failed": events.MESSAGE_FAILED,
    "complained": events.MESSAGE_COMPLAINED,
    "unsubscribed": events.MESSAGE_UNSUBSCRIBED,
    "opened": events.MESSAGE_OPENED,
    "clicked": events.MESSAGE_CLICKED,
}
# Bad news that puts the recipient on the suppression list (scope all): a hard bounce (a
# temporary one is `deferred`), a complaint, an unsubscribe through the provider.
SUPPRESSING = {
    "bounced": SuppressionReason.BOUNCED,
    "complained": SuppressionReason.COMPLAINED,
    "unsubscribed": SuppressionReason.UNSUBSCRIBED,
}
ONE_CLICK = "one-click"  # the one-click unsubscribe link's reports (unsubscribe_record)
# An operator's report (`manage.py report_delivery`): shell access to the service vouches for it,
# as the signed link vouches for a one-click unsubscribe. Never reachable over HTTP.
OPERATOR = "operator"
VOUCHED = (ONE_CLICK, OPERATOR)
RAW_LIMIT = 16_000  # characters of a provider's raw report kept with the event
_MESSAGE_ID = re.compile(
    r"^<?(?P<trigger>[0-9a-f-]{36})\.(?P<node>[\w-]{1,100})@(?P<domain>[^>]+)>?$"
)


@dataclass(frozen=True)
class Report:
    """One report of a provider about one message and recipient, in Notiflow's words."""

    provider: str
    channel: str
    event: str
    recipient: str
    provider_message_id: str
    event_id: str = ""
    occurred_at: datetime | None = None
    description: str = ""
    raw: Any = field(default_factory=dict)
    # Other ways to find the send: the idempotency key the provider echoed from the message's
    # metadata, and the message's own Message-ID header.
    idempotency_key: str = ""
    message_id: str = ""
    # The named providers (workers/providers) that may have made this report: those of the ESP
    # whose webhook it came through, or the Twilio accounts whose auth token signed it. A report
    # about a send that another provider accepted changes nothing (none given: none may).
    reporters: frozenset[str] = frozenset()
    # Who reported it when not the provider (ONE_CLICK: the link Notiflow signed itself, which
    # vouches for any provider's send), and the scope bad news suppresses the recipient in.
    via: str = ""
    scope: str = SuppressionScope.ALL

    def dedupe_key(self) -> str:
        identity = [self.provider, self.event_id, self.event, self.recipient.lower()]
        if not self.event_id:  # the report itself is its identity
            identity.append(json.dumps(self.raw, sort_keys=True, default=str))
        return hashlib.sha256("\x1f".join(identity).encode()).hexdigest()


def send_of(report: Report) -> SendLedger | None:
    """The send a report is about: by the provider's message id (recorded when it accepted the
    message), else by the idempotency key it echoed, else by the Message-ID."""
    sends = SendLedger.objects.only(
        "trigger_id", "node_id", "channel", "provider", "result"
    ).annotate(workflow_key=F("trigger__workflow__key"))
    if report.provider_message_id:
        found = sends.filter(provider_message_id=report.provider_message_id).first()
        if found:
            return found
    if report.idempotency_key:
        found = sends.filter(idempotency_key=report.idempotency_key).first()
        if found:
            return found
    match = _MESSAGE_ID.match(report.message_id.strip())
    if match and match["domain"] == settings.NOTIFLOW_MESSAGE_ID_DOMAIN:
        return sends.filter(trigger_id=uuid.UUID(match["trigger"]), node_id=match["node"]).first()
    return None


def send_recipients(send: SendLedger) -> set[str]:
    """The recipients `send` went to, normalised: the `to` its provider accepted (the ledger's
    result, written when the send completed; none before)."""
    to = str((send.result or {}).get("to") or "") if isinstance(send.result, dict) else ""
    kind = channel_node_type(send.channel)  # its rule of what a `to` names (email: addresses)
    found = kind.recipients({"id": send.node_id, "type": kind.name}, {"to": to}) if kind else []
    return {recipient_normalise(send.channel, r) for r in found if r.strip()}


def report_mismatch(report: Report, send: SendLedger) -> str:
    """Why `report` may not change the state of `send` ("" when it may): it must come from the
    provider that accepted the send and be about a recipient the send went to."""
    if report.via not in VOUCHED and send.provider not in report.reporters:
        accepted = send.provider or "no provider"
        return f"sent through {accepted}, not a provider of {report.provider}"
    if recipient_normalise(send.channel, report.recipient) not in send_recipients(send):
        return "the recipient is not one the send went to"
    return ""


def delivery_record(report: Report) -> DeliveryEvent | None:
    """Store `report` about its send, once, with its suppression and its announcement; then,
    committed, post it to the runs waiting for its message's state (waits.messages). A
    provider's redelivery changes nothing but posts again. None when it matches no send
    (logged: the provider is still answered 200, so it does not retry forever), or when it
    names a send that its provider did not accept or a recipient the send did not go to
    (stored as an UnmatchedReport, once, and logged): such a report suppresses, announces and
    posts nothing."""
    send = send_of(report)
    if send is None:
        logger.info(
            "%s report %r about message %r for %s matches no send; ignored",
            report.provider,
            report.event,
            report.provider_message_id or report.message_id or report.idempotency_key,
            report.recipient,
        )
        return None
    if mismatch := report_mismatch(report, send):
        _unmatched(report, send, mismatch)
        return None
    with transaction.atomic():
        row, created = DeliveryEvent.objects.get_or_create(
            dedupe_key=report.dedupe_key(),
            defaults={
                "trigger_id": send.trigger_id,
                "node_id": send.node_id,
                "channel": send.channel,
                "provider": send.provider or report.provider,
                "event": report.event,
                "recipient": report.recipient,
                "provider_message_id": report.provider_message_id[:255],
                "occurred_at": report.occurred_at or timezone.now(),
                "description": report.description[:1000],
                "raw": _bounded(report.raw),
            },
        )
        if created:
            if (reason := SUPPRESSING.get(report.event)) and report.recipient:
                suppression_add(
                    channel=send.channel,
                    recipient=report.recipient,
                    reason=reason,
                    scope=report.scope,
                    source=f"{report.via or row.provider} {report.event} event {row.pk}",
                )
            if kind := ANNOUNCED.get(report.event):
                _announce(kind, row)
            # The workflow's key comes with the send (send_of's annotation): no query more.
            workflow = str(getattr(send, "workflow_key", ""))
            transaction.on_commit(
                lambda: delivery_event_observe(
                    workflow=workflow, channel=row.channel, event=row.event
                )
            )
    # Committed, then posted: a run waiting for this message's state resumes (waits/). A
    # redelivered report changes nothing but posts again: the post is idempotent and resumes
    # what the first may have missed (its process died after the commit).
    message_events_post(
        trigger_id=row.trigger_id,
        node_id=row.node_id,
        channel=row.channel,
        state=row.event,
        source=f"delivery-{row.pk}",
        actor=f"provider:{row.provider}",
    )
    return row


def unsubscribe_record(*, unsubscribing: Unsubscribing) -> bool:
    """A one-click unsubscribe (RFC 8058): its recipient suppressed on its channel for marketing
    and, when the link names a send still known, an `unsubscribed` delivery event about that send
    announced as `message.unsubscribed`, as a provider's unsubscribe is (delivery_record); in one
    transaction, and once however often the link is posted (the suppression is added again if
    an operator removed it meanwhile). When that send was of a run for a recipient, their
    preference page's switch lands too: its workflow's category turned off on the channel
    (docs/design/recipients.md, "Preferences"). Whether the suppression is new."""
    channel, recipient, key = unsubscribing
    report = Report(
        provider=ONE_CLICK,
        channel=channel,
        event="unsubscribed",
        recipient=recipient,
        provider_message_id="",
        event_id=f"{ONE_CLICK} {key}",
        description="one-click unsubscribe (List-Unsubscribe-Post): no more marketing",
        raw={"List-Unsubscribe": "One-Click"},
        idempotency_key=key,
        via=ONE_CLICK,
        scope=SuppressionScope.MARKETING,
    )
    with transaction.atomic():
        if key:
            delivery_record(report)
            _preference_turn_off(send_key=key, channel=channel)
        _, created = suppression_add(
            channel=channel,
            recipient=recipient,
            reason=SuppressionReason.UNSUBSCRIBED,
            scope=SuppressionScope.MARKETING,
            source=f"{ONE_CLICK} unsubscribe",
        )
    return created


def _preference_turn_off(*, send_key: str, channel: str) -> None:
    """Turn off, in the preferences of the recipient of the run the send `send_key`
    (`<trigger_id>:<node_id>`) was of, that run's workflow's category on `channel`."""
    trigger_id = send_key.partition(":")[0]
    try:
        uuid.UUID(trigger_id)
    except ValueError:
        return
    run = (
        TriggerInstance.objects.filter(pk=trigger_id)
        .exclude(recipient="")
        .values("recipient", "workflow_version__definition")
        .first()
    )
    if run is None:  # no recipient, or purged meanwhile
        return
    category = preference_category_of(run["workflow_version__definition"])
    if category:
        category_switches_set(run["recipient"], {category: {channel: False}})


def _unmatched(report: Report, send: SendLedger, reason: str) -> None:
    row, created = UnmatchedReport.objects.get_or_create(
        dedupe_key=report.dedupe_key(),
        defaults={
            "trigger_id": send.trigger_id,
            "node_id": send.node_id,
            "channel": send.channel,
            "reporter": report.provider[:50],
            "provider": send.provider,
            "event": report.event[:20],
            "recipient": report.recipient[:320],
            "provider_message_id": report.provider_message_id[:255],
            "reason": reason[:200],
            "raw": _bounded(report.raw),
        },
    )
    if created:
        logger.warning(
            "%s report %r for %r about trigger %s node %s changes nothing: %s (unmatched report %s)",
            report.provider,
            report.event,
            report.recipient,
            send.trigger_id,
            send.node_id,
            reason,
            row.pk,
        )


def _announce(kind: str, row: DeliveryEvent) -> None:
    trigger = (
        TriggerInstance.objects.select_related("workflow", "workflow_version")
        .filter(pk=row.trigger_id)
        .first()
    )
    if trigger is None:  # purged meanwhile
        return
    message = {
        "node_id": row.node_id,
        "channel": row.channel,
        "provider": row.provider,
        "provider_message_id": row.provider_message_id,
        "to": row.recipient,
        "event": row.event,
        "occurred_at": row.occurred_at.isoformat(),
        "description": row.description,
    }
    events_record([announcement(kind, trigger, message=message)])


def _bounded(raw: Any) -> Any:
    text = json.dumps(raw, default=str)
    if len(text) <= RAW_LIMIT:
        return json.loads(text)
    return {"truncated": True, "head": text[:RAW_LIMIT]}

"""manage.py report_delivery: record what happened to a message as its provider would report it
(docs/operations/processes.md). The safe way to try a workflow's "opened" or "bounced" branch where no
provider reports (make run's mail catcher): shell access vouches for it, as a provider's signed
webhook does; a client's API key cannot (posted `message.*` events are refused)."""

from __future__ import annotations

import uuid
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from deliveries.services import ANNOUNCED, OPERATOR, Report, delivery_record, send_recipients
from workers.models import SendLedger, SendStatus


class Command(BaseCommand):
    help = (
        "Record a delivery report about the message a run's node sent (as its provider would "
        "report it): the event is stored and announced, suppresses on bad news, and resumes runs "
        "waiting for that state of the message."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("trigger_id", help="the run")
        parser.add_argument("node_id", help="the node that sent the message")
        parser.add_argument("event", choices=sorted(ANNOUNCED), help="what happened")
        parser.add_argument(
            "--recipient",
            help="the address it happened to (default: the one the send went to, when only one)",
        )

    def handle(
        self, *args: Any, trigger_id: str, node_id: str, event: str, recipient: str | None, **_: Any
    ) -> None:
        try:
            run = uuid.UUID(trigger_id)
        except ValueError as exc:
            raise CommandError(f"trigger_id {trigger_id!r} is not a run's id") from exc
        send = SendLedger.objects.filter(trigger_id=run, node_id=node_id).first()
        if send is None or send.status != SendStatus.SENT:
            raise CommandError(f"run {run} has sent no message at node {node_id!r}")
        sent_to = sorted(send_recipients(send))
        if recipient is None:
            if len(sent_to) != 1:
                raise CommandError(f"the message went to {sent_to}: say which with --recipient")
            recipient = sent_to[0]
        row = delivery_record(
            Report(
                provider=send.provider or OPERATOR,
                channel=send.channel,
                event=event,
                recipient=recipient,
                provider_message_id="",
                event_id=f"{OPERATOR} {uuid.uuid4()}",
                idempotency_key=send.idempotency_key,
                via=OPERATOR,
            )
        )
        if row is None:
            raise CommandError(f"{recipient!r} is not an address the message went to ({sent_to})")
        self.stdout.write(f"Recorded {event} for {recipient} on {run} {node_id} (event {row.pk}).")

import time

from django.core.management.base import BaseCommand, CommandError

from common.actors import command_actor
from common.cli import read_json
from triggers.models import TERMINAL_STATUSES, TriggerInstance, TriggerStatus
from triggers.services import TriggerRejected, trigger_create


class Command(BaseCommand):
    help = (
        "Trigger a workflow, as the API does: the same key twice is one run. Prints the trigger "
        "id alone on the last line. --wait follows the run and exits 1 unless it completes."
    )

    def add_arguments(self, parser):
        parser.add_argument("workflow", help="the workflow's key")
        parser.add_argument("--idempotency-key", required=True, help="the run's unique key")
        parser.add_argument(
            "--payload", default="{}", help="a JSON object, @file.json, or @- for stdin"
        )
        parser.add_argument(
            "--cancellation-key", default="", help="a key to cancel it by (cancel_trigger)"
        )
        parser.add_argument(
            "--wait", type=float, metavar="SECONDS", help="wait up to this long for the end"
        )

    def handle(self, *args, workflow, idempotency_key, payload, cancellation_key, wait, **options):
        try:
            trigger, created = trigger_create(
                workflow_key=workflow,
                idempotency_key=idempotency_key,
                payload=read_json(payload, what="--payload"),
                actor=command_actor("trigger_workflow"),
                cancellation_key=cancellation_key,
            )
        except TriggerRejected as exc:
            raise CommandError(exc.message) from exc
        verb = "Created" if created else "Already existed:"
        self.stderr.write(
            f"{verb} trigger of {workflow} v{trigger.workflow_version.number}, "
            f"status {trigger.status}."
        )
        if wait:
            trigger = self._wait(trigger, wait)
        self.stdout.write(str(trigger.pk))
        if wait and trigger.status != TriggerStatus.COMPLETED:
            raise CommandError(f"the run ended {trigger.status}: {trigger.last_error or '-'}")

    def _wait(self, trigger: TriggerInstance, timeout: float) -> TriggerInstance:
        deadline = time.monotonic() + timeout
        last = None
        while True:
            trigger.refresh_from_db()
            if (trigger.status, trigger.current_node_id) != last:
                last = (trigger.status, trigger.current_node_id)
                # A completed run is at no node; the others say where they are.
                node = trigger.current_node_id
                self.stderr.write(f"  {trigger.status}" + (f" at {node}" if node else ""))
            if trigger.status in TERMINAL_STATUSES:
                return trigger
            if time.monotonic() > deadline:
                raise CommandError(f"still {trigger.status} after {timeout:g}s: {trigger.pk}")
            time.sleep(0.2)

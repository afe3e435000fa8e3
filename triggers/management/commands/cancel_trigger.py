from django.core.management.base import BaseCommand, CommandError

from common.actors import command_actor
from triggers.cli import parse_trigger_ids
from triggers.state import (
    TriggerNotFound,
    TriggerStateConflict,
    trigger_cancel,
    triggers_cancel_by_key,
)


class Command(BaseCommand):
    help = (
        "Cancel triggers that have not finished, by id, or every one carrying a cancellation key "
        "(--cancellation-key, of --workflow alone when given). Exits 1 if a trigger named by id "
        "could not be cancelled."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "trigger_ids", nargs="*", metavar="trigger_id", help="an id, or a unique prefix of one"
        )
        parser.add_argument(
            "--cancellation-key", help="cancel every unfinished trigger carrying this key"
        )
        parser.add_argument("--workflow", help="with --cancellation-key: this workflow's only")
        parser.add_argument("--reason", default="cancelled with manage.py cancel_trigger")

    def handle(self, *args, trigger_ids, cancellation_key, workflow, reason, **options):
        if cancellation_key is not None:
            if trigger_ids:
                raise CommandError("give trigger ids or --cancellation-key, not both")
            self._by_key(cancellation_key, workflow, reason)
            return
        if workflow is not None:
            raise CommandError("--workflow goes with --cancellation-key")
        if not trigger_ids:
            raise CommandError("give the ids of the triggers to cancel, or --cancellation-key")
        failures = 0
        for trigger_id in parse_trigger_ids(trigger_ids):
            try:
                trigger_cancel(
                    trigger_id=trigger_id, actor=command_actor("cancel_trigger"), reason=reason
                )
                self.stdout.write(f"{trigger_id}: cancelled")
            except TriggerNotFound:
                failures += 1
                self.stderr.write(f"{trigger_id}: no such trigger")
            except TriggerStateConflict as exc:
                failures += 1
                self.stderr.write(f"{trigger_id}: not cancelled, {exc}")
        if failures:
            raise CommandError(f"{failures} of {len(trigger_ids)} not cancelled")

    def _by_key(self, cancellation_key: str, workflow: str | None, reason: str) -> None:
        if not cancellation_key:
            raise CommandError("--cancellation-key must not be empty")
        cancelled = triggers_cancel_by_key(
            cancellation_key=cancellation_key,
            workflow_key=workflow,
            actor=command_actor("cancel_trigger"),
            reason=reason,
        )
        for trigger_id in cancelled:
            self.stdout.write(f"{trigger_id}: cancelled")
        self.stderr.write(
            f"{len(cancelled)} trigger(s) with cancellation key {cancellation_key!r} cancelled"
        )

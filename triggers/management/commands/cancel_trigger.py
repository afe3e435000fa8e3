from django.core.management.base import BaseCommand, CommandError

from notiflow.actors import command_actor
from notiflow.cli import parse_trigger_ids
from triggers.state import TriggerNotFound, TriggerStateConflict, trigger_cancel


class Command(BaseCommand):
    help = "Cancel triggers that have not finished. Exits 1 if any could not be cancelled."

    def add_arguments(self, parser):
        parser.add_argument("trigger_ids", nargs="+", metavar="trigger_id")
        parser.add_argument("--reason", default="cancelled with manage.py cancel_trigger")

    def handle(self, *args, trigger_ids, reason, **options):
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

from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from common.actors import command_actor
from triggers.cli import parse_trigger_ids
from triggers.state import MAX_DELETE_REASON_LENGTH, TriggerNotFound, trigger_delete


class Command(BaseCommand):
    help = (
        "Soft-delete triggers (docs/design/rules.md, rule 12): never claimed again, history kept, the "
        "idempotency key free for a new trigger. Deleting a deleted trigger changes nothing (it "
        "says `already deleted`). "
        "Exits 1 if any could not be deleted."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "trigger_ids", nargs="+", metavar="trigger_id", help="an id, or a unique prefix of one"
        )
        parser.add_argument(
            "--reason",
            default="deleted with manage.py delete_trigger",
            help=f"kept as delete_reason and in its event (at most {MAX_DELETE_REASON_LENGTH})",
        )

    def handle(self, *args, trigger_ids, reason, **options):
        if len(reason) > MAX_DELETE_REASON_LENGTH:
            raise CommandError(f"--reason must be at most {MAX_DELETE_REASON_LENGTH} characters")
        failures = 0
        for trigger_id in parse_trigger_ids(trigger_ids):
            asked_at = timezone.now()
            try:
                trigger = trigger_delete(
                    trigger_id=trigger_id, actor=command_actor("delete_trigger"), reason=reason
                )
            except TriggerNotFound:
                failures += 1
                self.stderr.write(f"{trigger_id}: no such trigger")
                continue
            if trigger.deleted_at is not None and trigger.deleted_at < asked_at:
                # Deleted before this command asked: trigger_delete changed nothing.
                when = f"{trigger.deleted_at:%Y-%m-%d %H:%M:%S %Z}"
                self.stdout.write(f"{trigger_id}: already deleted at {when} ({trigger.status})")
            else:
                self.stdout.write(f"{trigger_id}: deleted ({trigger.status})")
        if failures:
            raise CommandError(f"{failures} of {len(trigger_ids)} not deleted")

from django.core.management.base import BaseCommand

from common.actors import command_actor
from common.cli import parse_age, progress
from triggers.selectors import trigger_stuck_list
from triggers.state import TriggerNotFound, TriggerStateConflict, trigger_requeue


class Command(BaseCommand):
    help = (
        "Requeue triggers no worker is moving: processing past an expired lease, or enqueued and "
        "due longer than --older-than. The sweeper does this by itself; this is the manual lever."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--older-than", default="1m", help="how overdue an enqueued trigger must be [1m]"
        )
        parser.add_argument("--dry-run", action="store_true", help="list them, change nothing")

    def handle(self, *args, older_than, dry_run, **options):
        overdue_after = parse_age(older_than)
        stuck = trigger_stuck_list(overdue_after=overdue_after)
        if dry_run:
            for trigger in stuck:
                self.stdout.write(
                    f"{trigger.pk} {trigger.workflow.key} {trigger.status} at "
                    f"{trigger.current_node_id}, due {trigger.available_at.isoformat()}"
                )
            self.stdout.write(f"{stuck.count()} stuck trigger(s) would be requeued.")
            return
        ids = list(stuck.values_list("pk", flat=True))
        requeued, moved_on = 0, 0
        for trigger_id in progress(ids, total=len(ids), description="requeueing"):
            try:
                trigger_requeue(
                    trigger_id=trigger_id,
                    actor=command_actor("requeue_stuck"),
                    overdue_after=overdue_after,
                )
                requeued += 1
            except (TriggerNotFound, TriggerStateConflict):
                moved_on += 1  # a worker or the sweeper got to it first: not stuck any more
        self.stdout.write(
            f"Requeued {requeued} stuck trigger(s)"
            + (f"; {moved_on} had moved on by themselves." if moved_on else ".")
        )

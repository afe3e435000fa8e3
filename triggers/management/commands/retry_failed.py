from django.core.management.base import BaseCommand, CommandError

from common.actors import command_actor
from common.cli import parse_since, progress
from triggers.selectors import trigger_failed_list
from triggers.state import TriggerNotFound, TriggerStateConflict, trigger_retry_now
from workflows.cli import existing_workflow_key


class Command(BaseCommand):
    help = (
        "Put failed triggers back to enqueued at the node that failed, attempts reset. "
        "Exits 1 if any could not be retried."
    )

    def add_arguments(self, parser):
        parser.add_argument("--workflow", help="only this workflow's triggers (its key)")
        parser.add_argument(
            "--since", help="only those that failed since: a date/datetime, or an age like 2h"
        )
        parser.add_argument("--dry-run", action="store_true", help="list them, change nothing")

    def handle(self, *args, workflow, since, dry_run, **options):
        failed = trigger_failed_list(
            workflow_key=existing_workflow_key(workflow),
            since=parse_since(since) if since is not None else None,
        )
        ids = list(failed.values_list("pk", flat=True))
        if dry_run:
            for trigger in failed:
                self.stdout.write(f"{trigger.pk} {trigger.workflow.key}: {trigger.last_error}")
            self.stdout.write(f"{len(ids)} failed trigger(s) would be retried.")
            return
        retried, problems = 0, []
        for trigger_id in progress(ids, total=len(ids), description="retrying"):
            try:
                trigger_retry_now(trigger_id=trigger_id, actor=command_actor("retry_failed"))
                retried += 1
            except (TriggerNotFound, TriggerStateConflict) as exc:
                # Someone else retried or cancelled it meanwhile: report, carry on.
                problems.append(f"{trigger_id}: {exc}")
        for problem in problems:
            self.stderr.write(problem)
        self.stdout.write(f"Retried {retried} of {len(ids)} failed trigger(s).")
        if problems:
            raise CommandError(f"{len(problems)} could not be retried")

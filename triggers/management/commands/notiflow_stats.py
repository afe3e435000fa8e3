import json

from django.core.management.base import BaseCommand, CommandError

from triggers.models import TriggerStatus
from triggers.selectors import WorkflowStats, trigger_stats, workflow_stats
from triggers.stats_api import workflow_stats_data
from workflows.models import Workflow


class Command(BaseCommand):
    help = (
        "Triggers by status and by workflow, the oldest due trigger and the lag behind it; with "
        "--workflow, one workflow's queue, backlog, success rate and run times over the last hour."
    )

    def add_arguments(self, parser):
        parser.add_argument("--json", action="store_true", help="machine-readable output")
        parser.add_argument(
            "--workflow",
            metavar="KEY",
            help="one workflow's statistics (as GET /api/workflows/KEY/stats/)",
        )

    def handle(self, *args, **options):
        if options["workflow"] is not None:
            workflow = Workflow.objects.filter(key=options["workflow"]).first()
            if workflow is None:
                raise CommandError(f"no workflow with the key {options['workflow']!r}")
            one = workflow_stats(workflow=workflow)
            if options["json"]:
                self.stdout.write(json.dumps(workflow_stats_data(one), indent=2))
            else:
                self._workflow_lines(one)
            return
        stats = trigger_stats()
        oldest = stats.oldest_due
        if options["json"]:
            self.stdout.write(
                json.dumps(
                    {
                        "at": stats.now.isoformat(),
                        "by_status": stats.by_status,
                        "by_workflow": stats.by_workflow,
                        "oldest_due": None
                        if oldest is None
                        else {
                            "id": str(oldest.pk),
                            "workflow": oldest.workflow.key,
                            "due_at": oldest.available_at.isoformat(),
                        },
                        "lag_seconds": round(stats.lag.total_seconds(), 3),
                        "expired_leases": stats.expired_leases,
                    },
                    indent=2,
                )
            )
            return
        statuses = list(TriggerStatus.values)
        width = max([len("workflow"), *(len(k) for k in stats.by_workflow)])
        header = f"{'workflow':<{width}}  " + "  ".join(f"{s:>10}" for s in statuses)
        self.stdout.write(header)
        self.stdout.write("-" * len(header))
        for key, counts in stats.by_workflow.items():
            self.stdout.write(
                f"{key:<{width}}  " + "  ".join(f"{counts.get(s, 0):>10}" for s in statuses)
            )
        self.stdout.write("-" * len(header))
        self.stdout.write(
            f"{'all':<{width}}  " + "  ".join(f"{stats.by_status.get(s, 0):>10}" for s in statuses)
        )
        self.stdout.write("")
        if oldest is None:
            self.stdout.write("Oldest due trigger: none (nothing is waiting for a worker).")
        else:
            self.stdout.write(
                f"Oldest due trigger: {oldest.pk} ({oldest.workflow.key}), due "
                f"{oldest.available_at.isoformat()}"
            )
        self.stdout.write(f"Lag: {stats.lag.total_seconds():.1f}s")
        self.stdout.write(f"Expired leases: {stats.expired_leases}")

    def _workflow_lines(self, stats: WorkflowStats) -> None:
        rate = stats.success_rate
        self.stdout.write(f"Workflow {stats.workflow_key}, queue {stats.queue}")
        self.stdout.write(f"Live workers on the queue: {stats.live_workers}")
        self.stdout.write("By status: " + ", ".join(f"{s} {n}" for s, n in stats.by_status.items()))
        self.stdout.write(f"Waiting for a worker (due, not claimed): {stats.queue_depth}")
        self.stdout.write(
            f"Last hour: {stats.completed} completed, {stats.failed} failed, success rate "
            + ("n/a" if rate is None else f"{100 * rate:.1f}%")
        )
        if stats.p50_seconds is None:
            self.stdout.write("Run time: no completed run in the last hour")
        else:
            self.stdout.write(
                f"Run time: p50 {stats.p50_seconds:.3f}s, p95 {stats.p95_seconds or 0:.3f}s"
            )

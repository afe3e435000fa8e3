import json

from django.core.management.base import BaseCommand

from triggers.models import TriggerStatus
from triggers.selectors import trigger_stats


class Command(BaseCommand):
    help = "Triggers by status and by workflow, the oldest due trigger and the lag behind it."

    def add_arguments(self, parser):
        parser.add_argument("--json", action="store_true", help="machine-readable output")

    def handle(self, *args, **options):
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

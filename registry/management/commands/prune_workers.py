from django.core.management.base import BaseCommand

from common.cli import parse_period
from registry.services import worker_prune


class Command(BaseCommand):
    help = (
        "Delete the registry rows of workers not seen for a period (stopped ones, and ones that "
        "died without a word). Live workers are never touched. Run it as the database owner."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--not-seen-for", required=True, metavar="PERIOD", help="7d, 12h, 90m, PT36H ..."
        )
        parser.add_argument("--dry-run", action="store_true", help="list them; delete nothing")

    def handle(self, *args, not_seen_for, dry_run, **options):
        period = parse_period(not_seen_for, option="--not-seen-for")
        names = worker_prune(not_seen_for=period, dry_run=dry_run)
        for name in names:
            self.stdout.write(f"{name}: {'would be deleted' if dry_run else 'deleted'}")
        verb = "Would delete" if dry_run else "Deleted"
        self.stdout.write(f"{verb} {len(names)} worker row(s) not seen for {not_seen_for}")

from typing import Any

from waits.services import events_purge
from workers.management.retention import PurgeCommand, retention_period
from workers.services.retention import retention_purge_events


class Command(PurgeCommand):
    help = (
        "Delete outbox events older than a retention period whose webhook deliveries are all "
        "over (delivered or failed), with their deliveries and attempts. An event still pending "
        "for an endpoint, a disabled one included, is kept. Then the events clients posted "
        "(POST /api/events/) older than the period and than the longest `lookback` a "
        "wait_event node declares, and the resolved waits of ended runs as old."
    )
    purge = staticmethod(retention_purge_events)
    measured_from = "the event's time"
    cutoff_words = "written before"
    unit_name = "events"

    def handle(self, *args: Any, older_than: str, dry_run: bool, **options: Any) -> None:
        super().handle(*args, older_than=older_than, dry_run=dry_run, **options)
        events, waits = events_purge(older_than=retention_period(older_than), dry_run=dry_run)
        verb = "Would delete" if dry_run else "Deleted"
        self.stdout.write(f"{verb} {events} received event(s) and {waits} event wait(s).")

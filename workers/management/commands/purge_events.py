from workers.management.retention import PurgeCommand
from workers.services.retention import retention_purge_events


class Command(PurgeCommand):
    help = (
        "Delete outbox events older than a retention period whose webhook deliveries are all "
        "over (delivered or failed), with their deliveries and attempts. An event still pending "
        "for an endpoint, a disabled one included, is kept."
    )
    purge = staticmethod(retention_purge_events)
    measured_from = "the event's time"
    cutoff_words = "written before"
    unit_name = "events"

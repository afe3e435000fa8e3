from workers.management.retention import PurgeCommand
from workers.services.retention import retention_purge


class Command(PurgeCommand):
    help = (
        "Delete finished triggers (completed, failed, cancelled) older than a retention period, "
        "with their step logs, events and send-ledger rows: the one way audit rows are deleted "
        "(soft-deleted triggers: purge_deleted)."
    )
    purge = staticmethod(retention_purge)
    measured_from = "completed_at"
    cutoff_words = "finished before"

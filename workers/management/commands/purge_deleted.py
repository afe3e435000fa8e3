from workers.management.retention import PurgeCommand
from workers.services.retention import retention_purge_deleted


class Command(PurgeCommand):
    help = (
        "Delete soft-deleted triggers (any status) deleted longer ago than a retention period, "
        "with their step logs, events and send-ledger rows. Triggers that are not deleted are "
        "never touched; finished ones leave with purge_logs."
    )
    purge = staticmethod(retention_purge_deleted)
    measured_from = "deleted_at"
    cutoff_words = "deleted before"

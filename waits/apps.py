from django.apps import AppConfig


class WaitsConfig(AppConfig):
    """Runs that wait for the world (docs/design.md, "Waiting for events"): the events clients
    post (POST /api/events/), the waits of `wait_event` nodes, and the matching that resumes a
    waiting run exactly once, by an event or by its timeout."""

    name = "waits"
    verbose_name = "Event waits"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        super().ready()
        # In-app seen/read resume message waits: the inbox, a room below, calls this hook
        # after a mark commits (docs/design.md, "Waiting for events").
        # A cancelled run's open wait is closed in the cancel's transaction (triggers is below).
        from inbox.services import MARKED_HOOKS
        from triggers.state import CANCELLED_HOOKS
        from waits.messages import inbox_marked
        from waits.services import waits_cancel

        if inbox_marked not in MARKED_HOOKS:
            MARKED_HOOKS.append(inbox_marked)
        if waits_cancel not in CANCELLED_HOOKS:
            CANCELLED_HOOKS.append(waits_cancel)

from django.apps import AppConfig


class WaitsConfig(AppConfig):
    """Runs that wait for the world (docs/design/waits.md, "Waiting for events"): the events clients
    post (POST /api/events/), the waits of `wait_event` nodes, and the matching that resumes a
    waiting run exactly once, by an event or by its timeout."""

    name = "waits"
    verbose_name = "Event waits"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        super().ready()
        from waits import hooks

        hooks.register()

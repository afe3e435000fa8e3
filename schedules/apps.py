from django.apps import AppConfig


class SchedulesConfig(AppConfig):
    """Recurring schedules (docs/guide/schedules.md): a workflow run for each recipient at each
    occurrence of an RFC 5545 rule, in each recipient's own time zone or a fixed one, created by
    the workers as one more kind of leased work."""

    name = "schedules"
    verbose_name = "Schedules"
    default_auto_field = "django.db.models.BigAutoField"

from django.apps import AppConfig


class InboxConfig(AppConfig):
    """The in-app inbox (docs/design/inbox.md, "In-app inbox"): the messages `inapp` nodes store for a
    run's recipient, their seen/read/archived states, and the feed the recipient's browser reads
    with a recipient token."""

    name = "inbox"
    verbose_name = "In-app inbox"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from inbox import hooks

        hooks.register()

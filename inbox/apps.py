from django.apps import AppConfig


class InboxConfig(AppConfig):
    """The in-app inbox (docs/design.md, "In-app inbox"): the messages `inapp` nodes store for a
    run's recipient, their seen/read/archived states, and the feed the recipient's browser reads
    with a recipient token."""

    name = "inbox"
    verbose_name = "In-app inbox"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Erasing a person (DELETE /api/recipients/<id>/, the admin's erase) deletes their in-app
        # messages in the same transaction.
        from inbox.services import inbox_erase
        from recipients.services import ERASERS

        if not any(name == "inbox_messages" for name, _ in ERASERS):
            ERASERS.append(("inbox_messages", inbox_erase))

from django.apps import AppConfig


class RecipientsConfig(AppConfig):
    """The people notifications are for: profiles under the client's own user ids, their
    preferences, the topics they subscribe to, and fan-outs to a topic's subscribers
    (docs/design/recipients.md, "Recipients")."""

    name = "recipients"
    verbose_name = "Recipients, preferences and topics"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # The admin's categories (recipients/category_admin.py) and topics' and fan-outs' pages,
        # in modules of their own (the profiles' are in recipients/admin.py).
        from recipients import category_admin, hooks, topics_admin  # noqa: F401

        hooks.register()

from django.apps import AppConfig


class RecipientsConfig(AppConfig):
    """The people notifications are for: profiles under the client's own user ids, their
    preferences, the topics they subscribe to, and fan-outs to a topic's subscribers
    (docs/design.md, "Recipients")."""

    name = "recipients"
    verbose_name = "Recipients, preferences and topics"
    default_auto_field = "django.db.models.BigAutoField"

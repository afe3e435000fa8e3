from django.apps import AppConfig


class RecipientsConfig(AppConfig):
    """The people notifications are for: profiles under the client's own user ids, their
    preferences, the topics they subscribe to, and fan-outs to a topic's subscribers
    (docs/design.md, "Recipients")."""

    name = "recipients"
    verbose_name = "Recipients, preferences and topics"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # The workflow validator (a room below) refuses a preference category that does not
        # exist through this lookup, and the admin shows categories (recipients/category_admin.py).
        from recipients import category_admin  # noqa: F401  (registers the Category admin)
        from recipients.models import Category
        from workflows import definition

        definition.category_exists = lambda slug: Category.objects.filter(slug=slug).exists()
        # Topics' and fan-outs' admin pages, in a module of their own (the profiles' are in
        # recipients/admin.py).
        from recipients import topics_admin  # noqa: F401

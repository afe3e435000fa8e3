from django.apps import AppConfig


class DeliveriesConfig(AppConfig):
    """What happens to a message after its provider accepted it: delivery status callbacks,
    suppression, one-click unsubscribe (docs/design.md, "Deliveries")."""

    name = "deliveries"
    verbose_name = "Deliveries and suppression"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from anymail.signals import tracking

        from deliveries.receivers import anymail_tracking
        from deliveries.selectors import delivery_timeline
        from triggers.selectors import TIMELINE_SOURCES

        tracking.connect(anymail_tracking, dispatch_uid="notiflow-deliveries")
        if delivery_timeline not in TIMELINE_SOURCES:
            TIMELINE_SOURCES.append(delivery_timeline)

from django.apps import AppConfig


class DeliveriesConfig(AppConfig):
    """What happens to a message after its provider accepted it: delivery status callbacks,
    suppression, one-click unsubscribe (docs/design/deliveries.md, "Deliveries")."""

    name = "deliveries"
    verbose_name = "Deliveries and suppression"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from anymail.signals import tracking

        from deliveries import hooks
        from deliveries.receivers import anymail_tracking

        tracking.connect(anymail_tracking, dispatch_uid="notiflow-deliveries")
        hooks.register()

from typing import Any

from django.contrib.admin.apps import AdminConfig


class NotiflowAdminConfig(AdminConfig):
    """django.contrib.admin with Notiflow's site as the default `admin.site` (Django's documented
    way to replace it), so every app's @admin.register lands on the branded, ordered site.

    Being the project's own AppConfig, it also wires what every process needs at start."""

    default_site = "notiflow.admin.NotiflowAdminSite"

    def ready(self) -> None:
        super().ready()
        from django.db.backends.signals import connection_created

        connection_created.connect(_connection_created, dispatch_uid="notiflow.pooler")
        # OpenTelemetry when OTEL_* ask for it (common/tracing.py); before any request or task,
        # and before gunicorn and Celery fork.
        from common.tracing import tracing_start

        tracing_start()


def _connection_created(sender: Any, connection: Any, **kwargs: Any) -> None:
    # Prepared statements and server-side cursors off behind a pooler that cannot keep them.
    from common.pooler import connection_configure

    connection_configure(connection=connection)

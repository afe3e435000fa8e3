from django.apps import AppConfig


class RegistryConfig(AppConfig):
    name = "registry"
    verbose_name = "Worker registry"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from registry.selectors import queue_unserved_warnings
        from workflows.warnings import SAVE_WARNING_HOOKS

        if queue_unserved_warnings not in SAVE_WARNING_HOOKS:
            SAVE_WARNING_HOOKS.append(queue_unserved_warnings)

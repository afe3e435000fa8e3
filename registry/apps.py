from django.apps import AppConfig


class RegistryConfig(AppConfig):
    name = "registry"
    verbose_name = "Worker registry"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from registry import hooks

        hooks.register()

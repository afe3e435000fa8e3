from django.apps import AppConfig
from django.core.exceptions import ImproperlyConfigured


class WorkersConfig(AppConfig):
    name = "workers"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Provider settings that cannot work stop every process at start, not a send later.
        from workers.providers import ProviderConfigError, channel_providers
        from workflows.channels import sending_channels

        try:
            for spec in sending_channels():
                channel_providers(spec.name)
        except ProviderConfigError as exc:
            raise ImproperlyConfigured(str(exc)) from None

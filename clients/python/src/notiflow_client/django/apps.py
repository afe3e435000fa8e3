from __future__ import annotations

from django.apps import AppConfig


class NotiflowClientConfig(AppConfig):
    name = "notiflow_client.django"
    # "django" alone would clash with nothing installed, but reads as Django's own.
    label = "notiflow_client"
    verbose_name = "Notiflow client"

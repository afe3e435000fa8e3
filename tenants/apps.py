from django.apps import AppConfig


class TenantsConfig(AppConfig):
    """The organisations a service sends for (docs/tenants.md): each tenant's name, properties,
    default locale, layout and category defaults, which a run naming it reads as it reads its
    recipient. A room just above `workflows`, below `content` and `recipients`, which store
    what is kept per tenant (catalog overrides, a person's per-tenant preferences) beside it."""

    name = "tenants"
    verbose_name = "Tenants"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from tenants import hooks

        hooks.register()

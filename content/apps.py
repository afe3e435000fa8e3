from django.apps import AppConfig


class ContentConfig(AppConfig):
    """What messages are written with besides a workflow's own templates: the translation
    catalogs, one per locale, with every version kept (docs/translations.md). A room between
    `workflows` and the apps above: the `t` filter (workflows.translation) reads the catalogs
    through workflows.hooks.CATALOG_MESSAGE, which this app fills."""

    name = "content"
    verbose_name = "Content: translations and layouts"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from content import hooks

        hooks.register()

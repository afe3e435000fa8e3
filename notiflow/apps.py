from django.contrib.admin.apps import AdminConfig


class NotiflowAdminConfig(AdminConfig):
    """django.contrib.admin with Notiflow's site as the default `admin.site` (Django's documented
    way to replace it), so every app's @admin.register lands on the branded, ordered site."""

    default_site = "notiflow.admin.NotiflowAdminSite"

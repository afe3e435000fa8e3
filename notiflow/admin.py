"""The admin site as a whole: its name and the order of its apps (project wiring). The display
helpers every app's admin uses (JSON, times, long texts) are common/admin.py's."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from notiflow.login_throttle import ThrottledAuthenticationForm

# The operator's apps, in the order of a run's life, each with its models in the order of use.
OPERATOR_APPS: dict[str, list[str]] = {
    "workflows": ["Workflow", "WorkflowVersion"],
    "content": [
        "TranslationCatalog",
        "TranslationCatalogVersion",
        "Layout",
        "Partial",
        "ContentVersion",
    ],
    "recipients": ["Recipient", "Category", "Topic", "TopicSubscription", "Fanout"],
    "tenants": ["Tenant", "TenantChange"],
    "schedules": ["Schedule", "ScheduleOccurrence"],
    "triggers": ["TriggerInstance", "TriggerEvent", "TriggerAction", "ApiKey"],
    "workers": ["StepExecutionLog", "SendLedger", "Digest"],
    "deliveries": ["DeliveryEvent", "Suppression", "UnmatchedReport"],
    "inbox": ["InboxMessage"],
    "events": ["WebhookEndpoint", "OutboxEvent", "WebhookAttempt"],
    "registry": ["Worker"],
}
# celery-beat's tables hold the sweeper's schedule, which beat installs at start
# (CELERY_BEAT_SCHEDULE). Operators have no use for them day to day and editing them changes how
# lost nudges are recovered, but a superuser looking into beat must still find them: so they
# come last, in one section whose name says what they are, rather than hidden.
INTERNAL_APPS: dict[str, str] = {"django_celery_beat": "Scheduler (internal)"}


def _rank(order: list[str], name: str) -> int:
    """Where `name` goes in `order`; names not in it go after those that are."""
    return order.index(name) if name in order else len(order)


class NotiflowAdminSite(admin.AdminSite):
    site_header = "Notiflow"
    site_title = "Notiflow admin"
    index_title = "Notiflow operations"
    site_url = "/"  # the landing page (notiflow.views.landing)
    login_form = ThrottledAuthenticationForm  # failed logins throttled (notiflow/login_throttle.py)

    def get_app_list(self, request: HttpRequest, app_label: str | None = None) -> list[Any]:
        """Django's list of what this user may see, reordered: the operator's apps first, then
        the others (accounts) in Django's order, then the internal ones under their new name.
        The index and the sidebar of every page both come from here."""
        apps = super().get_app_list(request)
        if app_label is not None:
            apps = [app for app in apps if app["app_label"] == app_label]
        for app in apps:
            order = OPERATOR_APPS.get(app["app_label"], [])
            app["models"].sort(key=lambda model, order=order: _rank(order, model["object_name"]))
            app["name"] = INTERNAL_APPS.get(app["app_label"], app["name"])
        operator = list(OPERATOR_APPS)
        return sorted(  # stable: apps of equal rank keep Django's order
            apps,
            key=lambda app: (app["app_label"] in INTERNAL_APPS, _rank(operator, app["app_label"])),
        )

"""The landing page at `/`: where a new user (or the admin's "View site") finds everything."""

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_safe


@require_safe
def landing(request: HttpRequest) -> HttpResponse:
    links = [
        ("Admin", reverse("admin:index"), "author workflows, follow runs, manage API keys"),
        ("API docs", reverse("docs"), "the REST API, try it in the browser"),
        ("OpenAPI schema", reverse("schema"), "the same API as a YAML document"),
        ("Health", reverse("health"), "database, broker and workers, as JSON"),
    ]
    if settings.NOTIFLOW_FLOWER_URL:
        links.append(("Flower", settings.NOTIFLOW_FLOWER_URL, "the Celery workers and their tasks"))
    return render(request, "landing.html", {"links": links})

"""The landing page at `/`: where a new user (or the admin's "View site") finds everything; and
the site's icon at /favicon.ico, where browsers ask for it on every page."""

from functools import cache
from pathlib import Path

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


FAVICON = Path(__file__).resolve().parent / "static" / "notiflow" / "favicon.svg"


@cache
def _favicon() -> bytes:
    return FAVICON.read_bytes()


@require_safe
def favicon(request: HttpRequest) -> HttpResponse:
    """The icon (an SVG, which browsers take at this path by its content type): pages link it,
    and a page that does not (the API docs, JSON) gets it here rather than a 404."""
    response = HttpResponse(_favicon(), content_type="image/svg+xml")
    response["Cache-Control"] = "public, max-age=86400"
    return response

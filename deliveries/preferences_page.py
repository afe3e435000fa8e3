"""The hosted preference page (docs/design.md, "Preferences"; docs/security.md, "The preference
page"): where `{{ preferences_url }}` leads.

The URL carries a signed, expiring token naming one person (recipients/preferences.py); it is the
page's only credential: no login, no cookie. The page lists the categories the person has
received (their runs' workflows), and any they have set, with a checkbox per channel, and a
plain form that saves them on submit: no JavaScript. The POST goes back to the same URL, token
and all, so it needs no CSRF token: CSRF guards a credential the browser adds by itself (a
session cookie), and this page has none; a forger who could make the POST would already hold
the token, with which they could change the same switches directly. The form says which
switches it showed (`shown`), so that a category received since the page was loaded is not
turned off by a box the person never saw.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from django.core import signing
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods

from recipients.models import Category, Recipient
from recipients.preferences import (
    category_switches_set,
    known_channels,
    preference_resolve,
    preferences_token_read,
)
from triggers.models import TriggerInstance
from workflows.definition import preference_category_of, required_of
from workflows.models import WorkflowVersion

logger = logging.getLogger(__name__)


def categories_received(recipient: str) -> set[str]:
    """The preference categories of the workflows (not required ones) of `recipient`'s runs."""
    versions = TriggerInstance.objects.filter(recipient=recipient).values("workflow_version_id")
    definitions = WorkflowVersion.objects.filter(pk__in=versions).values_list(
        "definition", flat=True
    )
    return {
        preference_category_of(definition)
        for definition in definitions
        if not required_of(definition) and preference_category_of(definition)
    }


@dataclass(frozen=True)
class Switch:
    """One checkbox: a category on a channel, and whether it is on now."""

    name: str  # `<slug>.<channel>`, the form field's
    channel: str
    on: bool


@dataclass(frozen=True)
class Row:
    category: Category
    switches: list[Switch]


def _rows(recipient: Recipient) -> list[Row]:
    preferences = recipient.preferences or {}
    slugs = categories_received(recipient.key) | set(preferences.get("categories") or {})
    rows = []
    for category in Category.objects.filter(slug__in=slugs).order_by("name", "slug"):
        switches = [
            Switch(
                name=f"{category.slug}.{channel}",
                channel=channel,
                on=preference_resolve(
                    preferences,
                    workflow="",
                    category=category.slug,
                    channel=channel,
                    defaults=category.defaults,
                ).send,
            )
            for channel in known_channels()
        ]
        rows.append(Row(category, switches))
    return rows


def _switches_posted(request: HttpRequest) -> dict[str, dict[str, bool]]:
    """{slug: {channel: on}} for each switch the form showed (`shown`): on when its box came."""
    channels = set(known_channels())
    shown = [name.split(".", 1) for name in request.POST.getlist("shown") if "." in name]
    slugs = {slug for slug, _ in shown}
    known = set(Category.objects.filter(slug__in=slugs).values_list("slug", flat=True))
    switches: dict[str, dict[str, bool]] = {}
    for slug, channel in shown:
        if slug in known and channel in channels:
            switches.setdefault(slug, {})[channel] = request.POST.get(f"{slug}.{channel}") == "on"
    return switches


def _page(request: HttpRequest, status: int, title: str, **extra: object) -> HttpResponse:
    response = render(
        request, "deliveries/preferences.html", {"title": title, **extra}, status=status
    )
    response["Cache-Control"] = "no-store"
    return response


@csrf_exempt  # the signed URL is the credential (the module's docstring says why)
@require_http_methods(["GET", "POST"])
def preferences_page(request: HttpRequest, token: str) -> HttpResponse:
    try:
        key = preferences_token_read(token)
    except signing.SignatureExpired:
        return _page(
            request, 400, "This link has expired", message="Use the link in a newer message."
        )
    except signing.BadSignature:
        return _page(request, 400, "This link is not valid", message="Nothing was changed.")
    saved = False
    if request.method == "POST":
        saved = category_switches_set(key, _switches_posted(request))
        if saved:
            logger.info("preferences of %s saved through their page", key)
    recipient = Recipient.objects.filter(key=key).first()
    if recipient is None:
        return _page(request, 404, "Nothing to manage here", message="We hold no profile for you.")
    return _page(
        request,
        200,
        "Your notification preferences",
        rows=_rows(recipient),
        saved=saved,
        name=recipient.name,
    )

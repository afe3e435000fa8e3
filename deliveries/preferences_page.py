"""The hosted preference page (docs/design/recipients.md, "Preferences"; docs/security/recipients.md, "The preference
page"): where `{{ preferences_url }}` leads.

The URL carries a signed, expiring token naming one person (recipients/preferences.py); it is the
page's only credential: no login, no cookie. The page lists the categories the person has
received (their runs' workflows), and any they have set, with a checkbox per channel those
categories' workflows send on (labelled for people, not by channel id), and a
plain form that saves them on submit: no JavaScript. The POST goes back to the same URL, token
and all, so it needs no CSRF token: CSRF guards a credential the browser adds by itself (a
session cookie), and this page has none; a forger who could make the POST would already hold
the token, with which they could change the same switches directly. The form says which
switches it showed (`shown`), so that a category received since the page was loaded is not
turned off by a box the person never saw; and only the boxes the person changed are stored, so
the others keep following the category's defaults. Below the switches, the person's quiet hours
(docs/quiet-hours.md): two times and the days, saved as PATCH saves them, only when the form
showed them (`quiet_shown`).
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
    category_channels,
    category_switches_set,
    channel_labels,
    definition_channels,
    preference_resolve,
    preferences_token_read,
)
from recipients.services import Profile, recipients_upsert
from triggers.models import TriggerInstance
from workflows.definition import preference_category_of, required_of
from workflows.models import WorkflowVersion
from workflows.quiet_hours import quiet_hours_problems
from workflows.timing import WEEKDAYS

logger = logging.getLogger(__name__)


def categories_received(recipient: str) -> dict[str, set[str]]:
    """The preference categories of the workflows (not required ones) of `recipient`'s runs,
    each with the channels those workflows' versions send on."""
    versions = TriggerInstance.objects.filter(recipient=recipient).values("workflow_version_id")
    definitions = WorkflowVersion.objects.filter(pk__in=versions).values_list(
        "definition", flat=True
    )
    received: dict[str, set[str]] = {}
    for definition in definitions:
        slug = preference_category_of(definition)
        if slug and not required_of(definition):
            received.setdefault(slug, set()).update(definition_channels(definition))
    return received


@dataclass(frozen=True)
class Switch:
    """One checkbox: a category on a channel, and whether it is on now."""

    name: str  # `<slug>.<channel>`, the form field's
    channel: str
    label: str  # what the person reads for the channel
    on: bool


@dataclass(frozen=True)
class Row:
    category: Category
    switches: list[Switch]


def _rows(recipient: Recipient) -> list[Row]:
    """A row per category the person received or set, with a box per channel that matters to
    them: those its workflows send on (the ones they received, and the category's active ones),
    and any they set themselves; in the registry's order."""
    preferences = recipient.preferences or {}
    chosen = preferences.get("categories") or {}
    received = categories_received(recipient.key)
    current = category_channels(set(received) | set(chosen))
    labels = channel_labels()
    rows = []
    for category in Category.objects.filter(slug__in=set(received) | set(chosen)).order_by(
        "name", "slug"
    ):
        slug = category.slug
        own = chosen.get(slug)
        wanted = received.get(slug, set()) | current.get(slug, set())
        wanted |= set(own) if isinstance(own, dict) else set()
        switches = [
            Switch(
                name=f"{slug}.{channel}",
                channel=channel,
                label=label,
                on=_effective(preferences, category, channel),
            )
            for channel, label in labels.items()
            if channel in wanted
        ]
        if switches:
            rows.append(Row(category, switches))
    return rows


def _effective(preferences: dict, category: Category, channel: str) -> bool:
    return preference_resolve(
        preferences,
        workflow="",
        category=category.slug,
        channel=channel,
        defaults=category.defaults,
    ).send


def _switches_changed(request: HttpRequest, recipient: Recipient) -> dict[str, dict[str, bool]]:
    """{slug: {channel: on}} for each switch the form showed (`shown`) whose box differs from
    what the person's preferences give now: only what the person changed is stored, so a switch
    they left alone keeps following the category's defaults when an operator changes them."""
    channels = set(channel_labels())
    preferences = recipient.preferences or {}
    shown = [name.split(".", 1) for name in request.POST.getlist("shown") if "." in name]
    slugs = {slug for slug, _ in shown}
    categories = {c.slug: c for c in Category.objects.filter(slug__in=slugs)}
    switches: dict[str, dict[str, bool]] = {}
    for slug, channel in shown:
        if slug not in categories or channel not in channels:
            continue
        on = request.POST.get(f"{slug}.{channel}") == "on"
        if on != _effective(preferences, categories[slug], channel):
            switches.setdefault(slug, {})[channel] = on
    return switches


def _quiet_hours_posted(request: HttpRequest) -> tuple[dict[str, object] | None, str]:
    """The quiet hours the form sent ({} for none: both times empty) and "", or None and why
    they were refused; None and "" when the form did not show them."""
    if request.POST.get("quiet_shown") != "1":
        return None, ""
    start, end = request.POST.get("quiet_start", ""), request.POST.get("quiet_end", "")
    if not start and not end:
        return {}, ""
    days = [day for day in WEEKDAYS if day in request.POST.getlist("quiet_days")]
    quiet: dict[str, object] = {"start": start[:5], "end": end[:5]}
    if days and len(days) < len(WEEKDAYS):  # none or all ticked: every day
        quiet["days"] = days
    problems = quiet_hours_problems(quiet)
    if problems:
        name, message = problems[0]
        return None, f"Quiet hours not saved: {name or 'they'} {message}"
    return quiet, ""


def _quiet_hours_shown(recipient: Recipient) -> dict[str, object]:
    quiet = recipient.quiet_hours or {}
    days = quiet.get("days") or []
    return {
        "start": quiet.get("start", ""),
        "end": quiet.get("end", ""),
        "days": [(day, day.capitalize(), day in days) for day in WEEKDAYS],
        "timezone": recipient.timezone or "",
    }


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
    recipient = Recipient.objects.filter(key=key).first()
    if recipient is None:
        return _page(request, 404, "Nothing to manage here", message="We hold no profile for you.")
    saved, refused = False, ""
    if request.method == "POST":
        quiet, refused = _quiet_hours_posted(request)
        changed = _switches_changed(request, recipient) if not refused else {}
        # A form whose quiet hours are refused saves nothing: the page says why.
        saved = not refused and (category_switches_set(key, changed) if changed else True)
        if saved and quiet is not None and quiet != (recipient.quiet_hours or {}):
            recipients_upsert([Profile(key=key, fields={"quiet_hours": quiet})], merge=True)
        if saved:
            logger.info("preferences of %s saved through their page", key)
            recipient.refresh_from_db()
    return _page(
        request,
        200,
        "Your notification preferences",
        rows=_rows(recipient),
        saved=saved,
        refused=refused,
        quiet=_quiet_hours_shown(recipient),
        name=recipient.name,
    )

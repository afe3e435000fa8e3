"""What a tenant may be (docs/tenants.md): the one home of its rules, which the API, the admin
and the services apply. Pure but for the categories' existence, asked through
workflows.hooks.CATEGORY_EXISTS (the recipients app answers; this room is below it). Each problem
is returned by its path (`preferences.comments.pigeon`)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from tenants.models import TENANT_ID_MAX_LENGTH
from workflows.channels import channel_names
from workflows.hooks import CATEGORY_EXISTS
from workflows.layouts import layout_problem
from workflows.locales import locale_problem

# An id is a URL segment (/api/tenants/<id>/) and a query parameter: letters, digits, `.`, `_`,
# `-`, starting with a letter or digit.
_ID = re.compile(rf"[A-Za-z0-9][A-Za-z0-9._-]{{0,{TENANT_ID_MAX_LENGTH - 1}}}")
# The fields of a tenant as the API and the admin take them.
TENANT_FIELDS = ("name", "properties", "default_locale", "layout", "preferences")


def tenant_id_problem(tenant_id: Any) -> str:
    """Why `tenant_id` cannot name a tenant, or "" when it can."""
    if not isinstance(tenant_id, str) or not _ID.fullmatch(tenant_id):
        return (
            f"must be 1 to {TENANT_ID_MAX_LENGTH} letters, digits, '.', '_' or '-', starting "
            "with a letter or a digit"
        )
    return ""


def tenant_problems(fields: Mapping[str, Any]) -> dict[str, list[str]]:
    """Every problem of a tenant's fields (TENANT_FIELDS; those left out are not checked) by
    path; none when they may be stored."""
    problems: dict[str, list[str]] = {}
    name = fields.get("name", "")
    if "name" in fields and (not isinstance(name, str) or not name.strip() or len(name) > 255):
        problems["name"] = ["must be a non-empty string of at most 255 characters"]
    if "properties" in fields and not isinstance(fields["properties"], dict):
        problems["properties"] = ["must be an object"]
    locale = fields.get("default_locale", "")
    if locale and (problem := locale_problem(locale)):
        problems["default_locale"] = [problem]
    layout = fields.get("layout", "")
    if layout and (problem := layout_problem(layout)):  # the layouts' own rule, and it exists
        problems["layout"] = [problem]
    if "preferences" in fields:
        problems.update(preferences_problems(fields["preferences"]))
    return problems


def preferences_problems(preferences: Any) -> dict[str, list[str]]:
    """A tenant's category defaults, {category: {channel: bool}}: an operator's category each
    (recipients' Categories), a registered channel each, true or false."""
    if not isinstance(preferences, dict):
        return {"preferences": ["must be an object of categories, each an object of channels"]}
    problems: dict[str, list[str]] = {}
    channels = set(channel_names())
    for slug, switches in preferences.items():
        where = f"preferences.{slug}"
        if not all(exists(slug) for exists in CATEGORY_EXISTS):
            problems[where] = ["unknown category: an operator makes it first (admin, Categories)"]
        elif not isinstance(switches, dict):
            problems[where] = ["must be an object of channels to true or false"]
        else:
            for channel, value in switches.items():
                if channel not in channels:
                    problems[f"{where}.{channel}"] = ["unknown channel"]
                elif not isinstance(value, bool):
                    problems[f"{where}.{channel}"] = ["must be true or false"]
    return problems

"""What a recipient's fields must look like (docs/design/recipients.md, "Recipients"): the one home of the
rules the API, identify-on-trigger and the admin's form all apply. Pure: each function returns
why a value is refused, or "" when it is fine."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from functools import cache

from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from recipients.models import KEY_MAX_LENGTH
from workflows.timing import zone_parse

# E.164: a plus, a country code that does not start with 0, at most 15 digits in all. Stored as
# given: the API does not guess at national formats.
E164 = re.compile(r"\+[1-9]\d{1,14}")
# The shape of a BCP 47 tag (RFC 5646, 2.1) without its registry: a language of 2-3 letters (or
# 5-8), then an optional script, region, variants and extensions, separated by hyphens.
BCP47 = re.compile(
    r"(?:[A-Za-z]{2,3}|[A-Za-z]{5,8})"
    r"(?:-[A-Za-z]{4})?"
    r"(?:-(?:[A-Za-z]{2}|\d{3}))?"
    r"(?:-(?:[A-Za-z0-9]{5,8}|\d[A-Za-z0-9]{3}))*"
    r"(?:-[0-9A-WY-Za-wy-z](?:-[A-Za-z0-9]{2,8})+)*"
    r"(?:-[xX](?:-[A-Za-z0-9]{1,8})+)?"
)
LOCALE_MAX_LENGTH = 35
# A key is the client's own user id; it travels in URLs and step logs, so no control characters.
_CONTROL = re.compile("[\x00-\x1f\x7f]")
# And it is one segment of `/api/recipients/<id>/`, and must come back from it as it went in: a
# slash splits the path (the server decodes %2F before routing), a backslash is a slash to
# browsers' URL parsers, and `.` or `..` are resolved away by clients and proxies (%2e%2e too).
_PATH_CHARACTERS = ("/", "\\")
_DOT_SEGMENTS = (".", "..")


def key_problem(key: str) -> str:
    if not 1 <= len(key) <= KEY_MAX_LENGTH:
        return f"must be 1 to {KEY_MAX_LENGTH} characters"
    if _CONTROL.search(key):
        return "may not contain control characters"
    if key != key.strip():
        return "may not start or end with a space"
    if any(character in key for character in _PATH_CHARACTERS):
        return "may not contain '/' or '\\' (it is a segment of the URL /api/recipients/<id>/)"
    if key in _DOT_SEGMENTS:
        return "may not be '.' or '..' (URLs resolve them away)"
    if key in reserved_keys():
        return f"{key!r} is reserved: /api/recipients/{key}/ is another endpoint"
    return ""


@cache
def reserved_keys() -> frozenset[str]:
    """The ids the detail URL cannot reach: each path the URLconf serves as a literal segment
    where the detail's id goes (`/api/recipients/bulk/`), read from the URLconf itself so that
    a new such endpoint reserves its name."""
    prefix = reverse("recipient-detail", args=["-"]).removesuffix("-/")
    reserved = set()
    for route in _routes(get_resolver().url_patterns, "/"):
        segment, slash, rest = route.removeprefix(prefix).partition("/")
        if route.startswith(prefix) and slash and not rest and segment and "<" not in segment:
            reserved.add(segment)
    return frozenset(reserved)


def _routes(patterns: Iterable[URLPattern | URLResolver], prefix: str) -> Iterator[str]:
    for pattern in patterns:
        route = prefix + str(pattern.pattern)
        if isinstance(pattern, URLResolver):
            yield from _routes(pattern.url_patterns, route)
        else:
            yield route


def email_problem(email: str) -> str:
    if not email:
        return ""
    try:
        validate_email(email)
    except ValidationError:
        return f"{email!r} is not an email address"
    return ""


def phone_problem(phone: str) -> str:
    if phone and not E164.fullmatch(phone):
        return f"{phone!r} is not a phone number in E.164 form (+15550100)"
    return ""


def locale_problem(locale: str) -> str:
    if locale and (len(locale) > LOCALE_MAX_LENGTH or not BCP47.fullmatch(locale)):
        return f"{locale!r} is not a BCP 47 language tag such as en or pt-BR"
    return ""


def timezone_problem(name: str) -> str:
    if not name:
        return ""
    try:
        zone_parse(name)
    except ValueError as exc:
        return str(exc)
    return "" if name == name.strip() else f"{name!r} has spaces around it"

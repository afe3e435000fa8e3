"""Locales: what a tag may be, which locales a run's message is looked up in, and the plural rule
of each (docs/translations.md). Babel (the CLDR's data) decides; nothing here is written by hand.

A locale is a BCP 47 tag Babel knows (`fr`, `fr-CA`, `pt-BR`, `zh-Hant-TW`), kept in one casing
(`locale_canonical`: `en-us` is `en-US`), so a trigger's, a recipient's and a catalog's tags
compare equal. The chain of a run (`locale_chain`) is: the trigger's `locale`, the recipient's,
the recipient's language without its region, the workflow's `default_locale`, then
NOTIFLOW_DEFAULT_LOCALE; each once, in that order, those Babel does not know left out.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from functools import lru_cache
from typing import Any

from babel import Locale, UnknownLocaleError
from django.conf import settings

# CLDR's plural categories: an object whose keys are all among them is a plural message.
PLURAL_CATEGORIES = ("zero", "one", "two", "few", "many", "other")


class LocaleInvalid(ValueError):
    """Not a BCP 47 tag Babel knows; the message says why."""


@lru_cache(maxsize=512)
def _parsed(tag: str) -> Locale:
    if not isinstance(tag, str) or not tag or "_" in tag:
        raise LocaleInvalid(f"{tag!r} is not a BCP 47 tag such as 'fr', 'fr-CA' or 'pt-BR'")
    try:
        return Locale.parse(tag, sep="-")
    except UnknownLocaleError as exc:
        raise LocaleInvalid(f"{tag!r} is not a locale Babel (the CLDR) knows") from exc
    except (ValueError, TypeError) as exc:
        raise LocaleInvalid(
            f"{tag!r} is not a BCP 47 tag such as 'fr', 'fr-CA' or 'pt-BR'"
        ) from exc


def locale_canonical(tag: str) -> str:
    """`tag` in its one casing (`en-us` -> `en-US`); LocaleInvalid when Babel does not know it."""
    parsed = _parsed(tag)
    parts = (parsed.language, parsed.script, parsed.territory, parsed.variant)
    return "-".join(part for part in parts if part)


def locale_problem(tag: Any) -> str:
    """Why `tag` is not a locale, or "" when it is one."""
    try:
        locale_canonical(tag)
    except LocaleInvalid as exc:
        return str(exc)
    return ""


def _known(tag: Any) -> str:
    """`tag` canonical, or "" when it is empty or not a locale Babel knows (a recipient's locale
    is checked for its shape only: recipients/validation.py)."""
    if not isinstance(tag, str) or not tag:
        return ""
    try:
        return locale_canonical(tag)
    except LocaleInvalid:
        return ""


def locale_chain(
    *,
    trigger_locale: str = "",
    recipient_locale: str = "",
    default_locale: str = "",
    tenant_locale: str = "",
) -> tuple[str, ...]:
    """The locales a run's message is looked up in, first to last: the trigger's, the
    recipient's, the recipient's language without its region (`fr-CA` -> `fr`), the run's
    tenant's default (docs/tenants.md), the workflow's default, NOTIFLOW_DEFAULT_LOCALE. Each
    once; an empty or unknown one is left out."""
    recipient = _known(recipient_locale)
    candidates = (
        _known(trigger_locale),
        recipient,
        recipient.split("-", 1)[0],
        _known(tenant_locale),
        _known(default_locale),
        _known(settings.NOTIFLOW_DEFAULT_LOCALE),
    )
    return tuple(dict.fromkeys(tag for tag in candidates if tag))


def babel_locale(tag: str) -> Locale:
    """The Babel locale of a canonical tag (one of a chain)."""
    return _parsed(tag)


def plural_category(tag: str, count: Any) -> str:
    """The CLDR plural category of `count` in locale `tag` (French 0 is `one`, English 0 is
    `other`); ValueError when `count` is not a number."""
    if isinstance(count, bool) or not isinstance(count, int | float | Decimal | str):
        raise ValueError(f"count must be a number, not {type(count).__name__}")
    try:
        number = count if isinstance(count, int | float | Decimal) else Decimal(count.strip())
    except InvalidOperation as exc:
        raise ValueError(f"count must be a number, not {count!r}") from exc
    return str(_parsed(tag).plural_form(number))

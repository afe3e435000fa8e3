"""The template filters that depend on the run's locale (docs/translations.md): `t`, a message of
the translation catalogs, and `money`, `number`, `date` and `datetime`, formatted by Babel.

Each reads the run's locale chain from the context (`locales`, workflows.locales.locale_chain:
the engine and the preview put it there), so the engine and the preview translate alike. The
catalogs are not this room's: `t` asks workflows.hooks.CATALOG_MESSAGE, which the content app
fills (content/selectors.py). What goes wrong is a Liquid error naming the key and the chain, so
the step fails permanently, as for any template that does not render.
"""

from __future__ import annotations

import zoneinfo
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import UTC, date, datetime
from decimal import Decimal, InvalidOperation
from typing import Any

from babel import Locale, dates, numbers
from liquid import RenderContext
from liquid.builtin.filters.misc import date as liquid_date
from liquid.exceptions import LiquidError
from liquid.filter import with_context

from workflows.hooks import CATALOG_MESSAGE, CATALOG_RECHECK
from workflows.locales import babel_locale, locale_chain, plural_category

# The context's name for the run's locale chain (a list of tags, first to last).
LOCALES = "locales"
# How deep a translated message may translate others (`{{ "brand.name" | t }}` inside one): a
# message that translates itself stops here, not at Python's recursion limit.
MAX_NESTING = 8
# Babel's named formats; any other `date`/`datetime` format is a CLDR pattern (`d MMM y`), and a
# `date` format with a `%` is Liquid's own strftime `date`.
_NAMED_FORMATS = ("short", "medium", "long", "full")

_nesting: ContextVar[int] = ContextVar("notiflow_translation_nesting", default=0)


class TranslationError(LiquidError):
    """A message that cannot be translated or formatted (the message says which and why)."""

    def __init__(self, message: str):
        super().__init__(message, token=None)


def _chain(context: RenderContext) -> tuple[str, ...]:
    chain = context.globals.get(LOCALES)
    if isinstance(chain, list | tuple) and chain:
        return tuple(str(tag) for tag in chain)
    return locale_chain()


def message_lookup(
    key: str, chain: tuple[str, ...], tenant: str | None = None
) -> tuple[str, Any] | None:
    """The first locale of `chain` whose catalog has `key`, with its message (a string, or a
    plural object), or None. For a run of `tenant`, each locale's catalog of that tenant is
    asked before the shared one (docs/tenants.md). A key found nowhere is looked for once more
    after CATALOG_RECHECK (a catalog made a moment ago by another process)."""
    for attempt in range(2):
        if attempt:  # a miss: the catalogs may have changed a moment ago elsewhere
            for recheck in CATALOG_RECHECK:
                recheck()
        for locale in chain:
            for lookup in CATALOG_MESSAGE:
                message = lookup(locale, key, tenant)
                if message is not None:
                    return locale, message
    return None


def _tenant(context: RenderContext) -> str | None:
    """The id of the run's tenant (the context's `tenant`, workflows.semantics), or None."""
    tenant = context.globals.get("tenant")
    found = tenant.get("id") if isinstance(tenant, dict) else None
    return found if isinstance(found, str) and found else None


@contextmanager
def _nested(key: str) -> Iterator[None]:
    depth = _nesting.get()
    if depth >= MAX_NESTING:
        raise TranslationError(
            f"translation {key!r}: messages translate others over {MAX_NESTING} deep "
            "(does a message translate itself?)"
        )
    token = _nesting.set(depth + 1)
    try:
        yield
    finally:
        _nesting.reset(token)


@with_context
def translate(key: Any, /, *, context: RenderContext, **variables: Any) -> Any:
    """`{{ "welcome.greeting" | t: name: recipient.name }}`: the message of `key` in the first
    locale of the run's chain that has it, rendered as Liquid with the message's context and
    the filter's arguments as variables; a plural message takes the form of `count` under the
    plural rule of the locale it was found in."""
    if not isinstance(key, str) or not key:
        raise TranslationError(f"t: the key must be a non-empty string, not {key!r}")
    chain = _chain(context)
    found = message_lookup(key, chain, _tenant(context))
    if found is None:
        raise TranslationError(
            f"translation {key!r} is in no catalog of the locale chain {' -> '.join(chain)}"
        )
    locale, message = found
    if isinstance(message, dict):
        if "count" not in variables:
            raise TranslationError(
                f"translation {key!r} ({locale}) has plural forms: give it a count "
                f'({{{{ "{key}" | t: count: ... }}}})'
            )
        try:
            category = plural_category(locale, variables["count"])
        except ValueError as exc:
            raise TranslationError(f"translation {key!r}: {exc}") from exc
        message = message.get(category, message["other"])
    with _nested(key):
        return context.env.message_render(str(message), {**context.globals, **variables})  # type: ignore[attr-defined]


def _format_locale(context: RenderContext) -> Locale:
    return babel_locale(_chain(context)[0])


def _decimal(value: Any, name: str) -> Decimal:
    if isinstance(value, bool) or not isinstance(value, int | float | Decimal | str):
        raise TranslationError(f"{name}: expected a number, found {type(value).__name__}")
    try:
        return Decimal(value.strip()) if isinstance(value, str) else Decimal(value)
    except InvalidOperation as exc:
        raise TranslationError(f"{name}: expected a number, found {value!r}") from exc


@with_context
def money(value: Any, currency: Any, *, context: RenderContext) -> str:
    """`{{ payload.total | money: "EUR" }}`: an amount in an ISO 4217 currency, in the locale."""
    try:
        numbers.validate_currency(str(currency))
    except numbers.UnknownCurrencyError as exc:
        raise TranslationError(f"money: {currency!r} is not an ISO 4217 currency code") from exc
    amount = _decimal(value, "money")
    return str(numbers.format_currency(amount, str(currency), locale=_format_locale(context)))


@with_context
def number(value: Any, *, context: RenderContext) -> str:
    """`{{ n | number }}`: a number with the locale's separators."""
    return str(numbers.format_decimal(_decimal(value, "number"), locale=_format_locale(context)))


def _zone(context: RenderContext) -> zoneinfo.ZoneInfo | Any:
    """The recipient's time zone, else UTC."""
    recipient = context.globals.get("recipient")
    name = recipient.get("timezone") if isinstance(recipient, dict) else None
    if isinstance(name, str) and name:
        try:
            return zoneinfo.ZoneInfo(name)
        except (zoneinfo.ZoneInfoNotFoundError, ValueError):
            pass
    return UTC


def _moment(value: Any, name: str) -> datetime | date:
    if value in ("now", "today"):
        return datetime.now(UTC)
    if isinstance(value, datetime | date):
        return value
    if isinstance(value, str):
        try:
            return datetime.fromisoformat(value.strip())
        except ValueError:
            pass
    raise TranslationError(f"{name}: expected an ISO 8601 date or time, found {value!r}")


@with_context
def date_format(value: Any, format: Any = "medium", *, context: RenderContext) -> Any:
    """`{{ payload.due | date: "long" }}`: a date in the locale (a format with a `%`: Liquid's
    strftime `date`, as before). A time with an offset is first moved to the recipient's zone."""
    if isinstance(format, str) and "%" in format:
        return liquid_date(value, format, environment=context.env)
    moment = _moment(value, "date")
    if isinstance(moment, datetime):
        moment = (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).astimezone(
            _zone(context)
        )
        moment = moment.date()
    return str(dates.format_date(moment, format=str(format), locale=_format_locale(context)))


@with_context
def datetime_format(value: Any, format: Any = "medium", *, context: RenderContext) -> str:
    """`{{ payload.at | datetime: "short" }}`: a date and time in the locale and the recipient's
    time zone (a time without an offset is UTC)."""
    moment = _moment(value, "datetime")
    if not isinstance(moment, datetime):
        moment = datetime(moment.year, moment.month, moment.day, tzinfo=UTC)
    elif moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return str(
        dates.format_datetime(
            moment, format=str(format), tzinfo=_zone(context), locale=_format_locale(context)
        )
    )


# The filters, by the name templates use.
FILTERS = {
    "t": translate,
    "money": money,
    "number": number,
    "date": date_format,
    "datetime": datetime_format,
}


def default_locales(definition_locale: str) -> tuple[str, ...]:
    """The end of every run's chain: the workflow's default locale, then the installation's
    (what saving a workflow checks its keys against)."""
    return locale_chain(default_locale=definition_locale)


def catalog_has(key: str, locales: tuple[str, ...]) -> bool:
    return message_lookup(key, locales) is not None

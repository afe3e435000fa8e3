"""Reads of the translation catalogs, layouts and partials: every process keeps them all in
memory, and knows within twice RECHECK_SECONDS that one changed (docs/translations.md, "Caching";
docs/layouts.md, "Caching"; the mechanism, which the tenants share, is common/generations.py).

How a change reaches every worker: every change writes a version row (TranslationCatalogVersion
for a catalog, ContentVersion for a layout or a partial), under one lock for all of its kind
(content/services.py), so their ids grow in the order the changes commit. A process that used a
cache more than RECHECK_SECONDS ago asks for the largest id before it uses it again, and loads
it afresh when that id is not the one it holds. Catalogs and layouts-with-partials are two such
caches, whose ids are read together (LATEST_VERSIONS_SQL: two index-only max() in one
statement, at most once per RECHECK_SECONDS: at the bench's pace nearly every step meets a stale
cache, and with two ORM aggregates an email step through content cost 1.25x the CPU of the same
one inline; with this statement, 1.05x: docs/layouts.md, "What it costs"). A step that
translates nothing asks nothing of the catalogs; an email without a layout or a partial,
nothing of the other. The process that made the change asks at its next use.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

from django.db import connection

from common.generations import RECHECK_SECONDS, GenerationCache
from content.models import Layout as LayoutRow
from content.models import Partial, TranslationCatalog
from content.validation import flattened
from workflows.layouts import Layout
from workflows.rendered_with import rendered_with_note

__all__ = ["CATALOGS", "PIECES", "RECHECK_SECONDS", "catalog_message", "layout_of", "partial_of"]

T = TypeVar("T")

# The latest version id of each table, in one statement (the engine's step asks it at most once
# per RECHECK_SECONDS for both caches: a busy worker's steps pay it rarely, an idle one's once).
LATEST_VERSIONS_SQL = """
SELECT (SELECT max(id) FROM translation_catalog_version),
       (SELECT max(id) FROM content_version)
"""


class _Versions:
    """The latest ids of translation_catalog_version and content_version, as of a read at most
    RECHECK_SECONDS old: a cache asks them at most that often, so a change is used by every
    process within twice RECHECK_SECONDS of its commit (well under a second)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._read_at = -math.inf
        self._ids: tuple[int | None, int | None] = (None, None)

    def latest(self) -> tuple[int | None, int | None]:
        with self._lock:
            if time.monotonic() - self._read_at >= RECHECK_SECONDS:
                with connection.cursor() as cursor:
                    cursor.execute(LATEST_VERSIONS_SQL)
                    row = cursor.fetchone()
                self._ids = (row[0], row[1])
                self._read_at = time.monotonic()
            return self._ids

    def forget(self) -> None:
        self._read_at = -math.inf


_VERSIONS = _Versions()


class _ContentCache(GenerationCache[T]):
    """A GenerationCache whose generation is one of _VERSIONS' ids; forgetting forgets both."""

    def __init__(self, *, which: int, load: Callable[[], T], empty: T) -> None:
        super().__init__(generation=lambda: _VERSIONS.latest()[which], load=load, empty=empty)

    def forget(self) -> None:
        super().forget()
        _VERSIONS.forget()


# Every catalog's messages by (tenant, locale) and dotted key, the shared ones under tenant "",
# and each catalog's version.
Catalogs = tuple[dict[tuple[str, str], dict[str, Any]], dict[tuple[str, str], int]]


def _catalogs_load() -> Catalogs:
    messages, versions = {}, {}
    rows = TranslationCatalog.objects.values_list("tenant", "locale", "messages", "version")
    for tenant, locale, stored, version in rows:
        messages[tenant, locale], versions[tenant, locale] = flattened(stored), version
    return messages, versions


def _Catalogs() -> _ContentCache[Catalogs]:
    """Every catalog, as of the latest change seen."""
    return _ContentCache(which=0, load=_catalogs_load, empty=({}, {}))


# Every layout (workflows.layouts.Layout) and every partial (its source and version), by key:
# one generation for both, the latest ContentVersion id.
Pieces = tuple[dict[str, Layout], dict[str, tuple[str, int]]]


def _pieces_load() -> Pieces:
    layouts = {
        key: Layout(key, version, html, text)
        for key, version, html, text in LayoutRow.objects.values_list(
            "key", "version", "html", "text"
        )
    }
    partials = {
        key: (content, version)
        for key, content, version in Partial.objects.values_list("key", "content", "version")
    }
    return layouts, partials


def _Pieces() -> _ContentCache[Pieces]:
    """Every layout and partial, as of the latest change seen."""
    return _ContentCache(which=1, load=_pieces_load, empty=({}, {}))


CATALOGS = _Catalogs()
PIECES = _Pieces()


def catalog_message(locale: str, key: str, tenant: str | None = None) -> Any:
    """The message of `key` (dotted: `welcome.subject`) in `locale`'s catalog: a Liquid string,
    a plural object, or None. Registered in workflows.hooks.CATALOG_MESSAGE, which the `t` filter
    asks. For a run of `tenant`, that tenant's catalog of the locale is consulted before the
    shared one (docs/tenants.md). The catalog that answered is noted with its version for the
    step log."""
    messages, versions = CATALOGS.value()
    for whose in (tenant, "") if tenant else ("",):
        message = messages.get((whose, locale), {}).get(key)
        if message is not None:
            rendered_with_note(
                "catalogs", f"{whose}/{locale}" if whose else locale, versions[whose, locale]
            )
            return message
    return None


def catalogs_recheck() -> None:
    """Ask at the next use whether a catalog changed (a key was missing: it may have been added a
    moment ago by another process). Registered in workflows.hooks.CATALOG_RECHECK."""
    CATALOGS.forget()


def layout_of(key: str, tenant: str | None = None) -> Layout | None:
    """The layout stored under `key`, or None (asked again at once before saying so: one made a
    moment ago by another process is found). Registered in workflows.hooks.LAYOUT."""
    found = PIECES.value()[0].get(key)
    if found is None:
        PIECES.forget()
        found = PIECES.value()[0].get(key)
    return found


def partial_of(key: str, tenant: str | None = None) -> tuple[str, int] | None:
    """The partial stored under `key`, (its source, its version), or None (asked again at once
    before saying so, as a layout is). Registered in workflows.hooks.PARTIAL, which `{% render %}`
    asks (workflows.partials)."""
    found = PIECES.value()[1].get(key)
    if found is None:
        PIECES.forget()
        found = PIECES.value()[1].get(key)
    return found

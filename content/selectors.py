"""Reads of the translation catalogs: every process keeps them all in memory, and knows within
RECHECK_SECONDS that one changed (docs/translations.md, "Caching").

How a change reaches every worker: every change writes a TranslationCatalogVersion row, under one
lock for all catalogs (content/services.py), so their ids grow in the order the changes commit.
A process that used the catalogs more than RECHECK_SECONDS ago asks for the largest id (one
index-only statement) before it uses them again, and loads every catalog afresh when it is not
the one it holds. A step that translates nothing asks nothing. The process that made the change
asks at its next use.
"""

from __future__ import annotations

import math
import threading
import time
from typing import Any

from django.db.models import Max

from content.models import TranslationCatalog, TranslationCatalogVersion
from content.validation import flattened

# At most this long between a change's commit and its use by every process (well under a second).
RECHECK_SECONDS = 0.5


class _Catalogs:
    """Every catalog's messages by locale and dotted key, as of the latest change seen."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._generation: int | None = None
        self._checked_at = -math.inf
        self._messages: dict[str, dict[str, Any]] = {}

    def messages(self) -> dict[str, dict[str, Any]]:
        if time.monotonic() - self._checked_at < RECHECK_SECONDS:
            return self._messages
        with self._lock:
            if time.monotonic() - self._checked_at >= RECHECK_SECONDS:
                # The generation first: a change committed after it is seen at the next check.
                generation = TranslationCatalogVersion.objects.aggregate(latest=Max("id"))
                if generation["latest"] != self._generation:
                    self._messages = {
                        locale: flattened(messages)
                        for locale, messages in TranslationCatalog.objects.values_list(
                            "locale", "messages"
                        )
                    }
                    self._generation = generation["latest"]
                self._checked_at = time.monotonic()
        return self._messages

    def forget(self) -> None:
        """Ask the database again at the next use (after this process changed a catalog)."""
        self._checked_at = -math.inf


CATALOGS = _Catalogs()


def catalog_message(locale: str, key: str, tenant: str | None = None) -> Any:
    """The message of `key` (dotted: `welcome.subject`) in `locale`'s catalog: a Liquid string,
    a plural object, or None. Registered in workflows.hooks.CATALOG_MESSAGE, which the `t` filter
    asks. `tenant` names whose catalog to consult before the shared one once tenants exist
    (issue 48, section 3); there are none yet, so it changes nothing."""
    return CATALOGS.messages().get(locale, {}).get(key)

"""Catalogs for the translation tests (docs/translations.md): English and French, with a plural
and a greeting taking an argument, stored through the services as the API stores them."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from content.selectors import CATALOGS
from content.services import catalog_put

MESSAGES: dict[str, dict[str, Any]] = {
    "en": {
        "welcome": {"subject": "Welcome, {{ name }}", "greeting": "Hello {{ name }}!"},
        "cart": {"items": {"one": "{{ count }} item", "other": "{{ count }} items"}},
        "only_en": "English only",
    },
    "fr": {
        "welcome": {"subject": "Bienvenue, {{ name }}", "greeting": "Bonjour {{ name }} !"},
        "cart": {"items": {"one": "{{ count }} article", "other": "{{ count }} articles"}},
    },
}


@pytest.fixture
def catalogs(db: Any) -> Iterator[dict[str, dict[str, Any]]]:
    """The catalogs of MESSAGES, stored; this process's cache forgets them afterwards (the
    test's rollback takes the rows away)."""
    for locale, messages in MESSAGES.items():
        catalog_put(locale=locale, messages=messages, actor="tests")
    yield MESSAGES
    CATALOGS.forget()

"""Catalogs are kept in every process and a change reaches each within a second
(content/selectors.py): a process that did not make the change sees it at its first use after
RECHECK_SECONDS, by the largest version id; between checks, translating costs no statement."""

from __future__ import annotations

import threading
import time

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

import content.selectors
import content.services
from content.selectors import CATALOGS, RECHECK_SECONDS, _Catalogs, catalog_message
from content.services import catalog_delete, catalog_put
from workflows.translation import message_lookup

# A locale of its own: these tests commit (their versions, append-only, stay behind).
LOCALE = "kw"


@pytest.fixture
def committed(django_db_setup, django_db_blocker):
    """Writes committed, as another process's are; the catalog deleted afterwards."""
    with django_db_blocker.unblock():
        CATALOGS.forget()
        yield
        catalog_delete(locale=LOCALE)
        CATALOGS.forget()


def another_process_puts(messages: dict[str, str]) -> None:
    """A change made elsewhere: its own connection, its own cache (the writer's `forget` is not
    this process's)."""

    def put() -> None:
        try:
            catalog_put(locale=LOCALE, messages=messages, actor="elsewhere")
        finally:
            connection.close()

    original = content.services.CATALOGS
    content.services.CATALOGS = _Catalogs()
    try:
        thread = threading.Thread(target=put)
        thread.start()
        thread.join(timeout=10)
    finally:
        content.services.CATALOGS = original


def test_a_change_made_elsewhere_is_used_within_a_second(committed):
    another_process_puts({"hi": "one"})
    assert catalog_message(LOCALE, "hi") == "one"

    another_process_puts({"hi": "two"})
    committed = time.monotonic()
    while catalog_message(LOCALE, "hi") != "two":
        assert time.monotonic() - committed < 1.0, "the change was not seen within a second"
        time.sleep(0.01)
    assert RECHECK_SECONDS < 1


def test_between_checks_translating_costs_no_statement_and_a_check_one(committed):
    another_process_puts({"hi": "one"})
    assert catalog_message(LOCALE, "hi") == "one"
    with CaptureQueriesContext(connection) as queries:
        for _ in range(1000):
            catalog_message(LOCALE, "hi")
    assert len(queries) == 0

    time.sleep(RECHECK_SECONDS)
    with CaptureQueriesContext(connection) as queries:
        assert catalog_message(LOCALE, "hi") == "one"
    assert len(queries) == 1  # the largest version id: unchanged, nothing reloaded


def test_a_key_the_copy_lacks_is_asked_for_again_at_once(committed, monkeypatch):
    """A workflow triggered right after its catalog was made elsewhere renders (the `t` filter
    asks again before failing: workflows.hooks.CATALOG_RECHECK), with checks otherwise an hour
    apart."""
    another_process_puts({"hi": "one"})
    assert message_lookup("hi", (LOCALE,)) == (LOCALE, "one")
    monkeypatch.setattr(content.selectors, "RECHECK_SECONDS", 3600)
    monkeypatch.setattr(CATALOGS, "_recheck", 3600)

    another_process_puts({"hi": "one", "new": "two"})
    assert catalog_message(LOCALE, "new") is None  # this process's copy is older than the change
    assert message_lookup("new", (LOCALE,)) == (LOCALE, "two")
    with CaptureQueriesContext(connection) as queries:
        assert message_lookup("hi", (LOCALE,)) == (LOCALE, "one")
    assert len(queries) == 0  # a key found asks nothing

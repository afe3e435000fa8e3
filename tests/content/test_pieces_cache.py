"""Layouts and partials are kept in every process and a change reaches each within a second, by
the catalogs' mechanism (content/selectors.py, docs/layouts.md "Caching"): a process that did not
make the change sees it at its first use after RECHECK_SECONDS, by the largest ContentVersion
id; between checks, rendering with them costs no statement."""

from __future__ import annotations

import threading
import time

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

import content.selectors
import content.services
from content.models import ContentKind
from content.selectors import PIECES, RECHECK_SECONDS, _Pieces, layout_of, partial_of
from content.services import content_delete, layout_put, partial_put

# Keys of their own: these tests commit (their versions, append-only, stay behind).
LAYOUT, PARTIAL = "cache-test-layout", "cache-test-partial"


@pytest.fixture
def committed(django_db_setup, django_db_blocker):
    """Writes committed, as another process's are; deleted afterwards."""
    with django_db_blocker.unblock():
        PIECES.forget()
        yield
        content_delete(kind=ContentKind.LAYOUT, key=LAYOUT)
        content_delete(kind=ContentKind.PARTIAL, key=PARTIAL)
        PIECES.forget()


def another_process(write) -> None:  # type: ignore[no-untyped-def]
    """A change made elsewhere: its own connection, its own cache (the writer's `forget` is not
    this process's)."""

    def run() -> None:
        try:
            write()
        finally:
            connection.close()

    original = content.services.PIECES
    content.services.PIECES = _Pieces()
    try:
        thread = threading.Thread(target=run)
        thread.start()
        thread.join(timeout=10)
    finally:
        content.services.PIECES = original


def test_a_change_made_elsewhere_is_used_within_a_second(committed):
    # Numbers go on after a delete, and committed versions stay: the sources tell them apart.
    another_process(lambda: partial_put(key=PARTIAL, content="one"))
    another_process(lambda: layout_put(key=LAYOUT, name="L", html="<p>{{ content }}</p>"))
    assert partial_of(PARTIAL)[0] == "one"
    layout = layout_of(LAYOUT)
    assert layout is not None and layout.html == "<p>{{ content }}</p>"

    another_process(lambda: partial_put(key=PARTIAL, content="two"))
    changed = time.monotonic()
    while partial_of(PARTIAL)[0] != "two":
        assert time.monotonic() - changed < 1.0, "the change was not seen within a second"
        time.sleep(0.01)
    another_process(lambda: content_delete(kind=ContentKind.LAYOUT, key=LAYOUT))
    deleted = time.monotonic()
    while layout_of(LAYOUT) is not None:
        assert time.monotonic() - deleted < 1.0, "the delete was not seen within a second"
        time.sleep(0.01)


def test_between_checks_rendering_with_them_costs_no_statement_and_a_check_one(committed):
    another_process(lambda: partial_put(key=PARTIAL, content="one"))
    another_process(lambda: layout_put(key=LAYOUT, name="L", html="<p>{{ content }}</p>"))
    assert partial_of(PARTIAL)[0] == "one" and layout_of(LAYOUT) is not None
    # (A missing one asks at once: test_a_layout_or_partial_the_copy_lacks_is_asked_for_again…)
    with CaptureQueriesContext(connection) as queries:
        for _ in range(1000):
            partial_of(PARTIAL)
            layout_of(LAYOUT)
    assert len(queries) == 0

    time.sleep(RECHECK_SECONDS)
    with CaptureQueriesContext(connection) as queries:
        assert partial_of(PARTIAL)[0] == "one"
    assert len(queries) == 1  # the largest version id: unchanged, nothing reloaded


def test_a_layout_or_partial_the_copy_lacks_is_asked_for_again_at_once(committed, monkeypatch):
    """One made elsewhere a moment ago is found at once (a miss asks before saying None), with
    checks otherwise an hour apart."""
    assert layout_of(LAYOUT) is None and partial_of(PARTIAL) is None
    monkeypatch.setattr(content.selectors, "RECHECK_SECONDS", 3600)
    monkeypatch.setattr(PIECES, "_recheck", 3600)

    another_process(lambda: partial_put(key=PARTIAL, content="one"))
    another_process(lambda: layout_put(key=LAYOUT, name="L", html="<p>{{ content }}</p>"))
    assert partial_of(PARTIAL) is not None and partial_of(PARTIAL)[0] == "one"
    layout = layout_of(LAYOUT)
    assert layout is not None and layout.html == "<p>{{ content }}</p>"

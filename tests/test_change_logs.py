"""The change logs that tell every process a cached table changed (common/generations.py) commit
in the order of their ids: a second writer waits for the first's commit before it writes its
row, so the largest id a process has seen covers every change below it. Shown for each writer
with a cache behind it: the shared catalogs, layouts and tenants, by a writer seen waiting on
the log's lock (pg_locks) while another holds its change uncommitted, and its row's id above
the first's."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection, transaction

import tenants.services
from common.generations import GenerationCache
from content.models import ContentVersion, TranslationCatalogVersion
from content.services import catalog_delete, catalog_put, content_delete, layout_put
from tenants.models import TenantChange
from tenants.selectors import TENANTS, tenant_for_run
from tenants.services import tenant_delete, tenant_put
from tests.conftest import unique


def catalog(name: str) -> tuple[Callable[[], Any], Callable[[], Any]]:
    locale = {"a": "kw", "b": "gv"}[name]  # locales of their own: these writes commit
    return (
        lambda: catalog_put(locale=locale, messages={"hi": name}),
        lambda: catalog_delete(locale=locale),
    )


def layout(name: str) -> tuple[Callable[[], Any], Callable[[], Any]]:
    key = unique(f"order-{name}")
    return (
        lambda: layout_put(key=key, name=key, html="<p>{{ content }}</p>"),
        lambda: content_delete(kind="layout", key=key),
    )


def tenant(name: str) -> tuple[Callable[[], Any], Callable[[], Any]]:
    key = unique(f"order-{name}")
    return (
        lambda: tenant_put(tenant_id=key, fields={"name": name}),
        lambda: tenant_delete(tenant_id=key),
    )


WRITERS = {
    "catalog": (catalog, TranslationCatalogVersion),
    "layout": (layout, ContentVersion),
    "tenant": (tenant, TenantChange),
}


def waiting_on_an_advisory_lock() -> bool:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"
            " AND database = (SELECT oid FROM pg_database WHERE datname = current_database())"
        )
        return cursor.fetchone()[0] > 0


@pytest.mark.parametrize("kind", WRITERS)
def test_a_second_change_waits_for_the_first_to_commit(kind, django_db_setup, django_db_blocker):
    make, log = WRITERS[kind]
    (first, undo_first), (second, undo_second) = make("a"), make("b")
    first_written, first_may_commit = threading.Event(), threading.Event()
    ids: dict[str, int] = {}

    def hold_first() -> None:
        try:
            with transaction.atomic():
                first()
                ids["first"] = log.objects.latest("id").id  # its own row: the latest it sees
                first_written.set()
                first_may_commit.wait(timeout=30)
        finally:
            connection.close()

    def write_second() -> None:
        try:
            second()
            ids["second"] = log.objects.latest("id").id
        finally:
            connection.close()

    with django_db_blocker.unblock():
        holder = threading.Thread(target=hold_first)
        holder.start()
        try:
            assert first_written.wait(timeout=10)
            writer = threading.Thread(target=write_second)
            writer.start()
            deadline = time.monotonic() + 10
            while not waiting_on_an_advisory_lock():
                assert writer.is_alive(), "the second change did not wait for the first"
                assert time.monotonic() < deadline, "the second change was not seen waiting"
                time.sleep(0.01)
        finally:
            first_may_commit.set()
            holder.join(timeout=10)
        writer.join(timeout=10)
        try:
            assert ids["second"] > ids["first"]
        finally:
            undo_first()
            undo_second()
            connection.close()


def test_a_tenant_the_copy_lacks_is_asked_for_again_at_once(
    django_db_setup, django_db_blocker, monkeypatch
):
    """A run for a tenant created elsewhere a moment ago sees it (not an empty tenant), with
    checks otherwise an hour apart."""
    key = unique("fresh")
    with django_db_blocker.unblock():
        TENANTS.forget()
        assert not tenant_for_run(key).found
        monkeypatch.setattr(TENANTS, "_recheck", 3600)
        monkeypatch.setattr(
            tenants.services,
            "TENANTS",
            GenerationCache(generation=lambda: None, load=dict, empty={}),
        )  # the writer's own copy is another process's: its forget() is not ours

        def create() -> None:
            try:
                tenant_put(tenant_id=key, fields={"name": "Fresh"})
            finally:
                connection.close()

        writer = threading.Thread(target=create)
        writer.start()
        writer.join(timeout=10)
        try:
            assert tenant_for_run(key).name == "Fresh"
        finally:
            tenant_delete(tenant_id=key)
            TENANTS.forget()

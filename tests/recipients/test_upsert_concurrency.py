"""Two merges of one person at once, on two connections (recipients/sql.py): the second waits
for the first's row lock and then recomputes its merge from the row the first left, so both
fields land; neither overwrites the other with the value it read before."""

from __future__ import annotations

import json
import threading
import time

import psycopg
from django.conf import settings

from recipients.models import Recipient
from recipients.sql import UPSERT_MERGE_SQL
from tests.conftest import unique


def connect() -> psycopg.Connection:
    db = settings.DATABASES["default"]
    return psycopg.connect(
        dbname=db["NAME"],
        user=db["USER"],
        host=db["HOST"],
        port=db["PORT"],
        password=db.get("PASSWORD") or None,
    )


def merge(conn: psycopg.Connection, key: str, **fields) -> None:
    items = [{"key": key, **fields}]
    conn.execute(UPSERT_MERGE_SQL, {"rcp_items": json.dumps(items)})


def test_two_concurrent_merges_of_different_fields_both_land(django_db_setup, django_db_blocker):
    key = unique("race")
    with django_db_blocker.unblock():
        Recipient.objects.create(key=key, properties={"a": 1})
        first, second = connect(), connect()
        try:
            merge(first, key, name="Ada", properties={"b": 2})  # holds the row's lock
            done = threading.Event()

            def later() -> None:
                merge(second, key, email="ada@example.com", properties={"c": 3})
                second.commit()
                done.set()

            thread = threading.Thread(target=later)
            thread.start()
            deadline = time.monotonic() + 10
            with connect() as watcher:
                while time.monotonic() < deadline:  # the second waits on the lock
                    (waiting,) = watcher.execute(
                        "SELECT count(*) FROM pg_stat_activity WHERE pid = %s "
                        "AND wait_event_type = 'Lock'",
                        [second.info.backend_pid],
                    ).fetchone()
                    if waiting:
                        break
                    time.sleep(0.02)
            assert waiting, "the second merge never waited for the first"
            assert not done.is_set()
            first.commit()
            thread.join(timeout=10)
            assert done.is_set()
            stored = Recipient.objects.get(key=key)
            assert (stored.name, stored.email) == ("Ada", "ada@example.com")
            assert stored.properties == {"a": 1, "b": 2, "c": 3}
        finally:
            first.close()
            second.close()
            Recipient.objects.filter(key=key).delete()

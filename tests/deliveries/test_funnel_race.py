"""The funnel's rollup counts a message's first report of each kind once, also when two arrive
at once (deliveries migration 0006): on committed rows, in two connections of their own."""

from __future__ import annotations

import threading

import psycopg
from django.db import connection

from deliveries.models import FunnelCount
from tests.deliveries.support import sent

REPORT_SQL = """
INSERT INTO delivery_event (trigger_id, node_id, channel, provider, event, recipient,
                            provider_message_id, dedupe_key, occurred_at, description, raw)
VALUES (%s, 'mail', 'email', 'ses', 'opened', 'ann@example.com', 'msg-race', %s, now(), '', '{}')
"""


def test_two_opens_of_one_message_stored_at_once_count_once(django_db_setup, django_db_blocker):
    """The second report's row trigger waits on the message's send ledger row until the first
    commits, then sees it: without that lock, each would see no earlier open and count one."""
    with django_db_blocker.unblock():
        check_committed(sent("msg-race", to="ann@example.com"))


def check_committed(trigger) -> None:
    params = connection.get_connection_params()
    first = psycopg.connect(**params)
    second = psycopg.connect(**params)
    try:
        first.execute(REPORT_SQL, [trigger.pk, "race-1"])  # its transaction open
        done = threading.Event()

        def other() -> None:
            second.execute(REPORT_SQL, [trigger.pk, "race-2"])
            second.commit()
            done.set()

        thread = threading.Thread(target=other)
        thread.start()
        assert not done.wait(0.5)  # held on the send's row until the first commits
        first.commit()
        thread.join(timeout=10)
        assert done.is_set()
    finally:
        first.close()
        second.close()
    opened = FunnelCount.objects.filter(workflow=trigger.workflow, outcome="opened")
    assert sum(opened.values_list("count", flat=True)) == 1

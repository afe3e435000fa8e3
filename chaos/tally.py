"""Counting a finished run: PostgreSQL's view, the faults injected, and what was delivered."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable
from typing import Any

from chaos.faults import (
    KILL_POOL_PROCESS,
    KILL_WORKER,
    PG_RESTART,
    RABBITMQ_RESTART,
    RECEIVER_DOWN,
    REDIS_FLUSH,
    REDIS_RESTART,
    FaultInjector,
)
from chaos.receiver import Arrival
from chaos.report import ChaosResult, Deliveries, Digests, Webhooks

Query = Callable[..., list[tuple[Any, ...]]]

# Two successful step logs for one (trigger, node): a step recorded twice. A digest's opener
# logs two steps at its node, each once: the wait for the window ("opened") and the close; so
# does a wait_event node: the park ("waiting_for") and the resume.
_STEPS_LOGGED_TWICE = """
SELECT count(*) FROM (
    SELECT 1 FROM step_log WHERE success
    GROUP BY trigger_id, node_id, coalesce(output ? 'opened', false),
             coalesce(output ? 'waiting_for', false)
    HAVING count(*) > 1
) twice
"""
# A completed trigger of the main workflow without one successful step for every node of it.
_INCOMPLETE_RUNS = """
SELECT count(*) FROM trigger_instance t
WHERE t.status = 'completed' AND t.id = ANY(%s::uuid[])
  AND (SELECT count(DISTINCT node_id) FROM step_log s WHERE s.trigger_id = t.id AND s.success)
      <> %s
"""

# The cancelled runs of some workflows (those a bulk cancel was asked for).
_CANCELLED_OF = """
SELECT count(*) FROM trigger_instance t JOIN workflows_workflow w ON w.id = t.workflow_id
WHERE t.status = 'cancelled' AND w.key = ANY(%s::text[])
"""


def tally(
    result: ChaosResult,
    *,
    query: Query,
    fired: dict[str, str],
    digest_fired: dict[str, str],
    faults: FaultInjector,
    deliveries: Deliveries,
    stuck: int,
    nodes: int,
    delivered_nodes: tuple[str, ...] = ("mail", "text"),
    cancelled_on_purpose: tuple[str, ...] = (),
) -> None:
    """Fill `result` in. `fired` maps idempotency key -> trigger id, as the API answered, for the
    main workflow; `digest_fired` the same for the digest workflow (tally_digests counts it).
    The runs of the workflows `cancelled_on_purpose` (a bulk cancel's: chaos/actions.py) are
    not counted as cancelled (their own tally counts them)."""
    result.fired = len(fired) + len(digest_fired)
    result.kills_worker = faults.count(KILL_WORKER)
    result.kills_pool_process = faults.count(KILL_POOL_PROCESS)
    result.redis_flushes = faults.count(REDIS_FLUSH)
    result.redis_restarts = faults.count(REDIS_RESTART)
    result.rabbitmq_restarts = faults.count(RABBITMQ_RESTART)
    result.postgres_restarts = faults.count(PG_RESTART)
    result.receiver_outages = faults.count(RECEIVER_DOWN)
    result.faults_during_work = sum(1 for fault in faults.log if fault.in_flight)

    statuses: dict[str, int] = dict(
        query("SELECT status, count(*) FROM trigger_instance GROUP BY 1")
    )
    result.completed = statuses.get("completed", 0)
    result.failed = statuses.get("failed", 0)
    result.cancelled = statuses.get("cancelled", 0) - int(
        query(_CANCELLED_OF, [list(cancelled_on_purpose)])[0][0]
    )
    not_terminal = statuses.get("enqueued", 0) + statuses.get("processing", 0)
    result.stuck = max(not_terminal, stuck)
    in_db = {str(row[0]) for row in query("SELECT id FROM trigger_instance")}
    main_ids = set(fired.values())
    fired_ids = main_ids | set(digest_fired.values())
    result.lost = len(fired_ids - in_db)
    result.steps_logged_twice = query(_STEPS_LOGGED_TWICE)[0][0]
    result.incomplete_runs = query(_INCOMPLETE_RUNS, [list(main_ids), nodes])[0][0]

    send_counts: dict[str, int] = dict(query("SELECT idempotency_key, send_count FROM send_ledger"))
    result.ledger_resend_rows = sum(1 for n in send_counts.values() if n > 1)
    result.ledger_resends = sum(n - 1 for n in send_counts.values())
    result.deliveries = deliveries
    received = deliveries.by_key
    # A key may arrive as often as the ledger says the provider was called, and no more.
    result.unexplained_duplicates = sum(
        max(0, count - send_counts.get(key, 1)) for key, count in received.items()
    )
    completed = query("SELECT id::text FROM trigger_instance WHERE status = 'completed'")
    expected = {
        f"{row[0]}:{node}" for row in completed if row[0] in main_ids for node in delivered_nodes
    }
    result.missing_deliveries = len(expected - set(received))
    result.unexpected_deliveries = sum(
        1 for key in received if key.partition(":")[0] not in fired_ids
    )


# In-app messages stored by a run's step, per (trigger, node).
_INAPP_MESSAGES = """
SELECT trigger_id::text, count(*) FROM inbox_message WHERE node_id = %s GROUP BY trigger_id
"""


def tally_inapp(result: ChaosResult, *, query: Query, fired: dict[str, str], node: str) -> None:
    """Exactly one in-app message per step: every completed run of the main workflow has one
    for its `node`, and no step has two."""
    stored: dict[str, int] = {str(t): int(n) for t, n in query(_INAPP_MESSAGES, [node])}
    main_ids = set(fired.values())
    result.inapp_messages = sum(n for trigger, n in stored.items() if trigger in main_ids)
    result.inapp_twice = sum(1 for n in stored.values() if n > 1)
    completed = query("SELECT id::text FROM trigger_instance WHERE status = 'completed'")
    result.inapp_missing = len({str(row[0]) for row in completed} & main_ids - set(stored))


# Every event the endpoint was to receive: one delivery row per (event, endpoint).
_ENDPOINT_EVENTS = """
SELECT e.event_id::text, e.type, e.trigger_id::text, d.status
FROM outbox_event e JOIN webhook_delivery d ON d.event_id = e.id
WHERE d.endpoint_id = %s
"""
# Attempts recorded, and those that got no HTTP status (connection refused, timeout).
_ATTEMPTS = """
SELECT count(*), count(*) FILTER (WHERE status_code IS NULL) FROM webhook_attempt
WHERE endpoint_id = %s
"""
_COMPLETED_AT = """
SELECT id::text, extract(epoch FROM completed_at)::float8 FROM trigger_instance
WHERE status = 'completed'
"""


def tally_webhooks(
    webhooks: Webhooks,
    *,
    query: Query,
    endpoint_id: str,
    subscribed: tuple[str, ...],
    arrivals: list[Arrival],
    failed_on_purpose: int,
    send_nodes: list[str],
    send_triggers: set[str],
) -> None:
    """Fill `webhooks` in from what the receiver got (`arrivals`) and the outbox. `subscribed` is
    what the endpoint subscribes to (trigger.completed among it, ChaosConfig); message.sent is
    expected only when it is, one per send node in `send_nodes`. `seconds_waited` is the
    harness's; everything else is counted here."""
    webhooks.endpoint = True
    webhooks.failed_on_purpose = failed_on_purpose
    events = query(_ENDPOINT_EVENTS, [endpoint_id])
    webhooks.events_written = len(events)
    webhooks.by_type = Counter(event_type for _, event_type, _, _ in events)
    webhooks.deliveries = Counter(status for _, _, _, status in events)
    webhooks.unsettled = webhooks.deliveries.get("pending", 0)
    written = {event_id for event_id, _, _, _ in events}
    completed_written = Counter(
        trigger for _, event_type, trigger, _ in events if event_type == "trigger.completed"
    )
    webhooks.completed_written_twice = sum(1 for n in completed_written.values() if n > 1)
    webhooks.attempts_recorded, webhooks.attempts_unanswered = query(_ATTEMPTS, [endpoint_id])[0]

    webhooks.requests = len(arrivals)
    by_id: dict[str, list[Arrival]] = defaultdict(list)
    for arrival in sorted(arrivals, key=lambda a: a.at):
        by_id[arrival.webhook_id].append(arrival)
    webhooks.bad_signatures = sum(1 for a in arrivals if a.verify_error)
    webhooks.redeliveries = sum(len(got) - 1 for got in by_id.values())
    first_accepted: dict[str, Arrival] = {}
    for webhook_id, got in by_id.items():
        accepted = [i for i, a in enumerate(got) if a.status == 200]
        if accepted:
            first_accepted[webhook_id] = got[accepted[0]]
            webhooks.redeliveries_after_200 += len(got) - 1 - accepted[0]
        if len({a.body for a in got}) > 1:
            webhooks.changed_bodies += 1
        webhooks.id_mismatches += sum(1 for a in got if a.event.get("id") != webhook_id)
    webhooks.accepted = len(first_accepted)
    webhooks.unknown = len(set(first_accepted) - written)
    webhooks.events_missing = len(written - set(first_accepted))

    # Matched on the bodies as received (the CloudEvents subject), not on the outbox.
    completed_at: dict[str, float | None] = {str(t): at for t, at in query(_COMPLETED_AT)}
    completed_received: dict[str, float] = {}
    sent_received: set[tuple[str, str]] = set()
    for arrival in first_accepted.values():
        event = arrival.event
        subject = str(event.get("subject", ""))
        if event.get("type") == "notiflow.trigger.completed":
            earliest = completed_received.get(subject, arrival.at)
            completed_received[subject] = min(earliest, arrival.at)
        elif event.get("type") == "notiflow.message.sent":
            node = event.get("data", {}).get("message", {}).get("node_id", "")
            sent_received.add((subject, node))
    webhooks.completed_expected = len(completed_at)
    webhooks.completed_accepted = len(set(completed_at) & set(completed_received))
    webhooks.completed_missing = len(set(completed_at) - set(completed_received))
    webhooks.latencies = [
        received - at
        for trigger, received in completed_received.items()
        if (at := completed_at.get(trigger)) is not None
    ]
    if {"*", "message.sent"} & set(subscribed):
        expected_sends = {
            (trigger, node)
            for trigger in completed_at
            if trigger in send_triggers
            for node in send_nodes
        }
        webhooks.sent_expected = len(expected_sends)
        webhooks.sent_missing = len(expected_sends - sent_received)


# Every run of the digest workflow in a digest, with its digest and that digest's opener.
_DIGEST_ENTRIES = """
SELECT e.trigger_id::text, e.digest_id::text, d.opener_id::text
FROM digest_entry e JOIN digest d ON d.id = e.digest_id
"""


def tally_digests(
    digests: Digests, *, query: Query, fired: dict[str, str], subjects: dict[str, str]
) -> None:
    """Fill `digests` in: every run that reached the digest node in exactly one digest, each
    digest sent (its opener's `send` email, whose subject is "digest <count> <id>"), and the
    counts in those emails adding up to the runs that reached the node."""
    fired_ids = set(fired.values())
    digests.fired = len(fired_ids)
    entries = [row for row in query(_DIGEST_ENTRIES) if row[0] in fired_ids]
    per_run = Counter(trigger for trigger, _, _ in entries)
    digests.reached = len(per_run)
    digests.in_two = sum(1 for n in per_run.values() if n > 1)
    digests.in_none = len(fired_ids - set(per_run))
    size = Counter(digest for _, digest, _ in entries)
    opener = {digest: opened_by for _, digest, opened_by in entries}
    digests.digests = len(size)
    for digest, count in size.items():
        subject = subjects.get(f"{opener[digest]}:send")
        if subject is None:
            digests.unsent += 1
            continue
        _, sent_count, sent_id = [*subject.split(), "", "", ""][:3]
        digests.counted_in_emails += int(sent_count) if sent_count.isdigit() else 0
        if sent_id != digest or sent_count != str(count):
            digests.wrong += 1

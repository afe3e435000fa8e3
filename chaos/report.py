"""What a chaos run measured, its targets, and the one table it prints."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field

from chaos.actions import Actions
from chaos.fanout import Fanouts
from chaos.schedule import Schedules
from chaos.waits import Waits


@dataclass
class Deliveries:
    """Messages the SMTP server accepted, the SMS outbox holds and the Slack stand-in received,
    by idempotency key."""

    emails: Counter[str] = field(default_factory=Counter)
    sms: Counter[str] = field(default_factory=Counter)
    # Posts the Slack stand-in received, by the send's ledger key (`<trigger id>:chat`).
    slack: Counter[str] = field(default_factory=Counter)

    @property
    def by_key(self) -> Counter[str]:
        return self.emails + self.sms + self.slack

    @property
    def duplicates(self) -> int:
        return sum(count - 1 for count in self.by_key.values() if count > 1)


def percentile(values: list[float], fraction: float) -> float | None:
    """The nearest-rank percentile of `values` (None when there are none)."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(fraction * len(ordered)))
    return ordered[rank - 1]


@dataclass
class Webhooks:
    """What the receiver got from the endpoint subscribed to every event, against the outbox.

    An event is *accepted* when the receiver answered one of its requests 200; every request
    after the first with the same webhook-id is a redelivery (allowed: at least once)."""

    endpoint: bool = False  # the run had an endpoint (off: the rest is empty and no target)
    events_written: int = 0  # outbox events with a delivery to the endpoint, every type
    by_type: Counter[str] = field(default_factory=Counter)  # those events, by type
    requests: int = 0  # POSTs that reached the receiver
    accepted: int = 0  # distinct webhook-ids answered 200 at least once
    # trigger.completed: one per completed trigger, matched on `subject` (the trigger id).
    completed_expected: int = 0
    completed_accepted: int = 0
    completed_missing: int = 0
    completed_written_twice: int = 0  # triggers with two trigger.completed events in the outbox
    # message.sent: one per send node of a completed trigger, by (subject, data.message.node_id).
    sent_expected: int = 0
    sent_missing: int = 0
    events_missing: int = 0  # outbox events never accepted, whatever their type
    unknown: int = 0  # webhook-ids accepted that are not in the outbox
    redeliveries: int = 0  # requests beyond the first per webhook-id
    redeliveries_after_200: int = 0  # of those, of an event the receiver had already accepted
    failed_on_purpose: int = 0  # first attempts the receiver answered 500 (at random)
    bad_signatures: int = 0  # requests the reference library refused
    changed_bodies: int = 0  # webhook-ids received with two different bodies
    id_mismatches: int = 0  # body's `id` differs from its webhook-id header
    attempts_recorded: int = 0  # webhook_attempt rows for the endpoint
    attempts_unanswered: int = 0  # of those, without an HTTP status (refused, timed out)
    deliveries: Counter[str] = field(default_factory=Counter)  # webhook_delivery by status
    unsettled: int = 0  # deliveries still pending at the webhook deadline
    # Seconds from a trigger's completed_at to the receiver's first 200 for its trigger.completed.
    latencies: list[float] = field(default_factory=list)
    seconds_waited: float = 0.0  # after the last trigger was terminal, for the deliveries

    def misses(self) -> list[str]:
        if not self.endpoint:
            return []
        checks = [
            (
                self.completed_missing == 0,
                f"{self.completed_missing} completed trigger(s) whose trigger.completed event "
                "the receiver never accepted",
            ),
            (
                self.events_missing == 0,
                f"{self.events_missing} outbox event(s) never accepted by the receiver",
            ),
            (
                self.completed_written_twice == 0,
                f"{self.completed_written_twice} trigger(s) with trigger.completed written twice",
            ),
            (
                self.unknown == 0,
                f"{self.unknown} webhook-id(s) received that are not in the outbox",
            ),
            (self.bad_signatures == 0, f"{self.bad_signatures} request(s) failed verification"),
            (
                self.changed_bodies == 0,
                f"{self.changed_bodies} webhook-id(s) redelivered with a different body",
            ),
            (self.id_mismatches == 0, f"{self.id_mismatches} body id(s) != webhook-id header"),
            (
                self.deliveries.get("failed", 0) == 0,
                f"{self.deliveries.get('failed', 0)} webhook deliveries failed for good",
            ),
            (self.unsettled == 0, f"{self.unsettled} webhook deliveries pending at the deadline"),
        ]
        return [message for ok, message in checks if not ok]

    def latency(self) -> str:
        p50, p99 = percentile(self.latencies, 0.5), percentile(self.latencies, 0.99)
        if p50 is None or p99 is None:
            return "-"
        return f"p50 {p50:.2f}s, p99 {p99:.2f}s, max {max(self.latencies):.2f}s"

    def rows(self) -> list[tuple[str, object]]:
        if not self.endpoint:
            return []
        return [
            ("webhook events written (outbox, all types)", self.events_written),
            ("trigger.completed events expected", self.completed_expected),
            ("  received (answered 200)", self.completed_accepted),
            ("  missing", self.completed_missing),
            (
                "message.sent missing (1 per send node expected)",
                self.sent_missing if self.sent_expected else "-",
            ),
            ("outbox events never received", self.events_missing),
            ("webhook requests received", self.requests),
            ("  distinct webhook-ids answered 200", self.accepted),
            ("  redeliveries (same webhook-id again)", self.redeliveries),
            ("    of an event already answered 200", self.redeliveries_after_200),
            ("  answered 500 on purpose (first attempts)", self.failed_on_purpose),
            ("  signatures refused (standardwebhooks)", self.bad_signatures),
            ("  redelivered with a different body", self.changed_bodies),
            ("webhook attempts recorded", self.attempts_recorded),
            ("  no answer (receiver down, timeout)", self.attempts_unanswered),
        ]

    def notes(self) -> list[str]:
        if not self.endpoint:
            return []
        types = ", ".join(f"{name} {count}" for name, count in sorted(self.by_type.items()))
        statuses = ", ".join(f"{name} {count}" for name, count in sorted(self.deliveries.items()))
        return [
            f"webhook events by type: {types or '-'}; deliveries by status: {statuses or '-'}",
            f"trigger completed -> its trigger.completed answered 200: {self.latency()}; "
            f"waited {self.seconds_waited:.0f}s for deliveries after the last trigger",
        ]


@dataclass
class Digests:
    """The digest workflow's runs (off when none were fired): each in exactly one digest, each
    digest sent once, the counts its emails carry adding up to the runs."""

    fired: int = 0
    reached: int = 0  # runs in a digest
    in_two: int = 0  # runs in more than one digest
    in_none: int = 0  # runs in no digest
    digests: int = 0
    unsent: int = 0  # digests whose email never arrived
    wrong: int = 0  # digest emails whose count or id is not the digest's
    counted_in_emails: int = 0  # the sum of the counts in the digest emails

    def misses(self) -> list[str]:
        if not self.fired:
            return []
        checks = [
            (self.in_none == 0, f"{self.in_none} digest run(s) in no digest"),
            (self.in_two == 0, f"{self.in_two} digest run(s) in two digests"),
            (self.unsent == 0, f"{self.unsent} digest(s) never sent"),
            (self.wrong == 0, f"{self.wrong} digest email(s) with a wrong count or id"),
            (
                self.counted_in_emails == self.reached == self.fired,
                f"digest counts add up to {self.counted_in_emails}, runs that reached the node "
                f"{self.reached}, fired {self.fired}",
            ),
        ]
        return [message for ok, message in checks if not ok]

    def rows(self) -> list[tuple[str, object]]:
        if not self.fired:
            return []
        return [
            ("digest runs fired", self.fired),
            ("  in a digest (reached the node)", self.reached),
            ("  in no digest / in two", f"{self.in_none} / {self.in_two}"),
            ("digests", self.digests),
            ("  never sent", self.unsent),
            ("  sum of the counts in the emails", self.counted_in_emails),
            ("  emails with a wrong count or id", self.wrong),
        ]


@dataclass
class ChaosResult:
    triggers: int
    broker: str = "redis"
    fired: int = 0
    intake_retries: int = 0
    completed: int = 0
    failed: int = 0
    cancelled: int = 0
    stuck: int = 0
    lost: int = 0
    # Completed triggers without exactly one successful step per node.
    incomplete_runs: int = 0
    steps_logged_twice: int = 0
    kills_worker: int = 0
    kills_pool_process: int = 0
    redis_flushes: int = 0
    redis_restarts: int = 0
    rabbitmq_restarts: int = 0
    postgres_restarts: int = 0
    receiver_outages: int = 0
    faults_during_work: int = 0
    deliveries: Deliveries = field(default_factory=Deliveries)
    # Ledger rows whose provider was called more than once: the documented crash window.
    ledger_resends: int = 0
    ledger_resend_rows: int = 0
    unexplained_duplicates: int = 0
    missing_deliveries: int = 0
    unexpected_deliveries: int = 0
    # The in-app step (chaos runs with channels): completed runs with no inbox message for it,
    # and steps that stored more than one (the unique (trigger, node) forbids it: counted anyway).
    inapp_messages: int = 0
    inapp_missing: int = 0
    inapp_twice: int = 0
    webhooks: Webhooks = field(default_factory=Webhooks)
    digests: Digests = field(default_factory=Digests)
    fanouts: Fanouts = field(default_factory=Fanouts)
    schedules: Schedules = field(default_factory=Schedules)
    waits: Waits = field(default_factory=Waits)
    actions: Actions = field(default_factory=Actions)
    died_by_themselves: list[str] = field(default_factory=list)
    faults_requested: dict[str, int] = field(default_factory=dict)
    # Faults of kinds the chaos run does not know (the hosts harness: a link cut, a freeze), by
    # the label of their row; counted with the others.
    other_faults: dict[str, int] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)

    @property
    def kills(self) -> int:
        return self.kills_worker + self.kills_pool_process

    @property
    def faults_injected(self) -> dict[str, int]:
        """By kind: those requested and any that happened (the chaos run requests every kind
        of its own, some zero times; a run of other faults requests only those)."""
        injected = {
            "kills": self.kills,
            # With RabbitMQ as the broker, its restart takes the flush's place (fault_plan).
            "flushes": self.redis_flushes + self.rabbitmq_restarts,
            "redis_restarts": self.redis_restarts,
            "pg_restarts": self.postgres_restarts,
            "receiver_outages": self.receiver_outages,
            **self.other_faults,
        }
        return {k: n for k, n in injected.items() if k in self.faults_requested or n}

    def misses(self) -> list[str]:
        """Every target this run missed, in words; empty when all were met."""
        checks = [
            (self.fired == self.triggers, f"only {self.fired} of {self.triggers} triggers fired"),
            (self.lost == 0, f"{self.lost} acknowledged trigger(s) missing from the database"),
            (self.stuck == 0, f"{self.stuck} trigger(s) not terminal at the deadline"),
            (
                self.failed == 0,
                f"{self.failed} trigger(s) failed (no permanent error was injected)",
            ),
            (self.cancelled == 0, f"{self.cancelled} trigger(s) cancelled (nobody cancelled)"),
            (self.incomplete_runs == 0, f"{self.incomplete_runs} completed run(s) skipped a node"),
            (self.steps_logged_twice == 0, f"{self.steps_logged_twice} step(s) logged twice"),
            (
                self.unexplained_duplicates == 0,
                f"{self.unexplained_duplicates} duplicate deliveries beyond the ledger's re-sends",
            ),
            (self.missing_deliveries == 0, f"{self.missing_deliveries} message(s) never delivered"),
            (self.unexpected_deliveries == 0, f"{self.unexpected_deliveries} unknown deliveries"),
            (
                self.inapp_missing == 0,
                f"{self.inapp_missing} completed run(s) without in-app message",
            ),
            (self.inapp_twice == 0, f"{self.inapp_twice} in-app step(s) stored twice"),
            (
                not self.died_by_themselves,
                f"{len(self.died_by_themselves)} process(es) exited by themselves",
            ),
            (
                self.faults_injected == self.faults_requested,
                f"faults injected {self.faults_injected} != requested {self.faults_requested}",
            ),
        ]
        misses = [message for ok, message in checks if not ok]
        return (
            misses
            + self.digests.misses()
            + self.fanouts.misses()
            + self.schedules.misses()
            + self.waits.misses()
            + self.actions.misses()
            + self.webhooks.misses()
        )

    def _broker_rows(self) -> list[tuple[str, str, object]]:
        """(kind in faults_injected, label, value) of the broker's faults."""
        if self.broker == "rabbitmq":
            return [
                ("flushes", "RabbitMQ restarts (the broker)", self.rabbitmq_restarts),
                ("redis_restarts", "Redis restarts (cache and rate limits)", self.redis_restarts),
            ]
        return [
            ("flushes", "Redis flushes", self.redis_flushes),
            ("redis_restarts", "Redis restarts", self.redis_restarts),
        ]

    def table(self) -> str:
        d = self.deliveries
        injected = self.faults_injected
        faults: list[tuple[str, str, object]] = [
            (
                "kills",
                "kills (SIGKILL)",
                f"{self.kills} ({self.kills_worker} whole worker, "
                f"{self.kills_pool_process} pool process)",
            ),
            *self._broker_rows(),
            ("pg_restarts", "PostgreSQL restarts", self.postgres_restarts),
            ("receiver_outages", "webhook receiver outages", self.receiver_outages),
            *((kind, kind, count) for kind, count in self.other_faults.items()),
        ]
        rows: list[tuple[str, object]] = [
            ("triggers fired", self.fired),
            ("  completed", self.completed),
            ("  failed", self.failed),
            ("  stuck (not terminal at the deadline)", self.stuck),
            ("  lost (acknowledged, not in the database)", self.lost),
            *((label, value) for kind, label, value in faults if kind in injected),
            ("emails received", d.emails.total()),
            ("SMS received", d.sms.total()),
            *(
                [
                    ("Slack posts received", d.slack.total()),
                    ("in-app messages stored", self.inapp_messages),
                    ("  completed runs without one", self.inapp_missing),
                    ("  steps with more than one", self.inapp_twice),
                ]
                if d.slack or self.inapp_messages
                else []
            ),
            ("distinct idempotency keys received", len(d.by_key)),
            ("duplicates (same key received twice)", d.duplicates),
            ("  ledger rows with send_count > 1 (crash window)", self.ledger_resend_rows),
            ("  duplicates not explained by the ledger", self.unexplained_duplicates),
            ("deliveries missing for completed triggers", self.missing_deliveries),
            ("steps logged twice", self.steps_logged_twice),
            ("processes that exited by themselves", len(self.died_by_themselves)),
            *self.digests.rows(),
            *self.fanouts.rows(),
            *self.schedules.rows(),
            *self.waits.rows(),
            *self.actions.rows(),
            *self.webhooks.rows(),
        ]
        width = max(len(label) for label, _ in rows)
        lines = [f"{label:<{width}}  {value!s:>8}" for label, value in rows]
        rule = "-" * len(max(lines, key=len))
        timing = ", ".join(f"{name} {value:.0f}s" for name, value in self.seconds.items())
        misses = self.misses()
        verdict = "targets: all met" if not misses else "targets MISSED: " + "; ".join(misses)
        deaths = [f"exited by itself (replaced): {death}" for death in self.died_by_themselves]
        return "\n".join(
            [
                rule,
                *lines,
                rule,
                *deaths,
                *self.webhooks.notes(),
                f"faults while triggers were in flight: {self.faults_during_work} of "
                f"{sum(self.faults_injected.values())}; HTTP intake retries: {self.intake_retries}",
                f"time: {timing}",
                verdict,
            ]
        )

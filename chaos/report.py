"""What a chaos run measured, its targets, and the one table it prints."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field


@dataclass
class Deliveries:
    """Messages the SMTP server accepted and the SMS outbox holds, by idempotency key."""

    emails: Counter[str] = field(default_factory=Counter)
    sms: Counter[str] = field(default_factory=Counter)

    @property
    def by_key(self) -> Counter[str]:
        return self.emails + self.sms

    @property
    def duplicates(self) -> int:
        return sum(count - 1 for count in self.by_key.values() if count > 1)


@dataclass
class ChaosResult:
    triggers: int
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
    postgres_restarts: int = 0
    faults_during_work: int = 0
    deliveries: Deliveries = field(default_factory=Deliveries)
    # Ledger rows whose provider was called more than once: the documented crash window.
    ledger_resends: int = 0
    ledger_resend_rows: int = 0
    unexplained_duplicates: int = 0
    missing_deliveries: int = 0
    unexpected_deliveries: int = 0
    died_by_themselves: list[str] = field(default_factory=list)
    faults_requested: dict[str, int] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)

    @property
    def kills(self) -> int:
        return self.kills_worker + self.kills_pool_process

    @property
    def faults_injected(self) -> dict[str, int]:
        return {
            "kills": self.kills,
            "flushes": self.redis_flushes,
            "redis_restarts": self.redis_restarts,
            "pg_restarts": self.postgres_restarts,
        }

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
                not self.died_by_themselves,
                f"{len(self.died_by_themselves)} process(es) exited by themselves",
            ),
            (
                self.faults_injected == self.faults_requested,
                f"faults injected {self.faults_injected} != requested {self.faults_requested}",
            ),
        ]
        return [message for ok, message in checks if not ok]

    def table(self) -> str:
        d = self.deliveries
        rows: list[tuple[str, object]] = [
            ("triggers fired", self.fired),
            ("  completed", self.completed),
            ("  failed", self.failed),
            ("  stuck (not terminal at the deadline)", self.stuck),
            ("  lost (acknowledged, not in the database)", self.lost),
            (
                "kills (SIGKILL)",
                f"{self.kills} ({self.kills_worker} whole worker, "
                f"{self.kills_pool_process} pool process)",
            ),
            ("Redis flushes", self.redis_flushes),
            ("Redis restarts", self.redis_restarts),
            ("PostgreSQL restarts", self.postgres_restarts),
            ("emails received", d.emails.total()),
            ("SMS received", d.sms.total()),
            ("distinct idempotency keys received", len(d.by_key)),
            ("duplicates (same key received twice)", d.duplicates),
            ("  ledger rows with send_count > 1 (crash window)", self.ledger_resend_rows),
            ("  duplicates not explained by the ledger", self.unexplained_duplicates),
            ("deliveries missing for completed triggers", self.missing_deliveries),
            ("steps logged twice", self.steps_logged_twice),
            ("processes that exited by themselves", len(self.died_by_themselves)),
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
                f"faults while triggers were in flight: {self.faults_during_work} of "
                f"{sum(self.faults_injected.values())}; HTTP intake retries: {self.intake_retries}",
                f"time: {timing}",
                verdict,
            ]
        )

"""What the retention commands (purge_logs, purge_deleted, purge_events) share: the options, the period's
parsing, the progress lines and the report. Each command names its service and says what it
deletes; the services (workers.services.retention) do the work."""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import timedelta

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone

from common.cli import parse_period
from workers.services.retention import PurgeReport
from workers.sql import PARTITIONED


def retention_period(value: str) -> timedelta:
    return parse_period(value, option="--older-than")


class PurgeCommand(BaseCommand):
    """A retention command: `--older-than PERIOD`, `--dry-run`, `--batch-size N`,
    `--duty-cycle SHARE`. It counts first (what the dry run prints), then writes a line per batch
    with a progress bar against that count (so a long run shows how far it is, in logs as on a
    terminal) and one for the total.

    With a duty cycle under 1 it pauses after each batch, so that its batches take at most that
    share of its time: the database's and the machine's CPU it leaves to the workers (on two
    cores a purge at full speed took half the engine's throughput, BENCHMARKS.md, figure 6)."""

    # Set by each command: the service, what the age is measured from (for --help), and how
    # the total line names the cutoff ("finished before", "deleted before").
    purge: Callable[..., PurgeReport]
    measured_from: str
    cutoff_words: str
    unit_name = "triggers"  # what a batch counts, in the progress line

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--older-than",
            required=True,
            metavar="PERIOD",
            help=f"retention period, measured from {self.measured_from}: 30d, 12h, 90m, PT36H ...",
        )
        parser.add_argument(
            "--dry-run", action="store_true", help="count what would be deleted; delete nothing"
        )
        parser.add_argument(
            "--batch-size",
            type=int,
            default=500,
            help=f"{self.unit_name} per transaction [500]",
        )
        parser.add_argument(
            "--duty-cycle",
            type=float,
            default=1.0,
            metavar="SHARE",
            help="the share of its time the purge spends in its batches, over 0 and up to 1: "
            "after each it pauses so (0.1: nine times as long as the batch took) [1]",
        )

    def handle(
        self,
        *args,
        older_than: str,
        dry_run: bool,
        batch_size: int,
        duty_cycle: float = 1.0,
        **options,
    ) -> None:
        period = retention_period(older_than)
        if batch_size < 1:
            raise CommandError("--batch-size must be at least 1")
        if not 0 < duty_cycle <= 1:
            raise CommandError(f"--duty-cycle must be over 0 and at most 1, not {duty_cycle}")
        purge = type(self).purge
        now = timezone.now()  # one cutoff for the count and the purge
        # The count first (the dry run's own), so each batch can say how far the purge is.
        expected = purge(older_than=period, dry_run=True, now=now)
        if dry_run:
            self._report(expected, verb="Would delete")
            return
        unit = expected.unit
        total = expected.deleted[unit]
        done = 0
        started = time.monotonic()

        def progress(batch: int, counts: dict[str, int]) -> None:
            nonlocal done, started
            done += counts[unit]
            self.stdout.write(
                f"batch {batch}: {_bar(done, total, self.unit_name)}; " + _counts(counts)
            )
            if duty_cycle < 1:
                time.sleep((time.monotonic() - started) * (1 / duty_cycle - 1))
                started = time.monotonic()

        report = purge(
            older_than=period, dry_run=False, batch_size=batch_size, on_batch=progress, now=now
        )
        self._report(report, verb="Deleted")

    def _report(self, report: PurgeReport, *, verb: str) -> None:
        for history in PARTITIONED:
            dropped = [p for p in report.partitions if p.table == history.table]
            if dropped:
                self.stdout.write(
                    history.dropped_line + ", ".join(f"{p.partition} {p.rows}" for p in dropped)
                )
        self.stdout.write(
            f"{verb} ({self.cutoff_words} {report.cutoff.isoformat(timespec='seconds')}): "
            + _counts(report.deleted)
        )


def _bar(done: int, total: int, unit: str, width: int = 20) -> str:
    """`[#####---------------] 1,500 of 6,000 triggers (25%)`; never past 100% (a trigger
    finished after the count, before the same cutoff, cannot join: the cutoff is fixed)."""
    share = min(done / total, 1.0) if total else 1.0
    filled = round(share * width)
    return f"[{'#' * filled}{'-' * (width - filled)}] {done:,} of {total:,} {unit} ({share:.0%})"


def _counts(counts: dict[str, int]) -> str:
    """Each table's count, the parent table first."""
    return ", ".join(f"{table} {counts[table]}" for table in reversed(counts))

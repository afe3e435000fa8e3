"""manage.py suppressions export|import: the suppression list as CSV (docs/operations/people-and-channels.md)."""

from __future__ import annotations

import csv
import sys
from pathlib import Path
from typing import Any, TextIO

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction

from common.actors import command_actor
from common.cli import progress
from deliveries.models import Suppression, SuppressionReason, SuppressionScope
from deliveries.suppression import (
    recipient_checked,
    suppression_add,
    suppressions_present,
)
from workflows.channels import suppressible_channels

COLUMNS = ["channel", "recipient", "scope", "reason", "source", "created_at"]
REQUIRED = {"channel", "recipient"}


class Command(BaseCommand):
    help = (
        "Export the suppression list as CSV, or import one (idempotent: entries already there "
        "stay as they are). Columns: " + ",".join(COLUMNS) + " (import needs channel and "
        "recipient; scope defaults to all, reason to the --reason given)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        verbs = parser.add_subparsers(dest="verb", required=True)
        export = verbs.add_parser("export", help="write the list as CSV")
        export.add_argument("--channel", choices=suppressible_channels())
        export.add_argument("--output", default="-", help="a file, or - for stdout (default)")
        load = verbs.add_parser("import", help="add the entries of a CSV file")
        load.add_argument("file", help="a CSV file with a header row, or - for stdin")
        load.add_argument("--channel", choices=suppressible_channels(), help="for rows without one")
        load.add_argument(
            "--reason", choices=SuppressionReason.values, default=SuppressionReason.MANUAL
        )
        load.add_argument(
            "--dry-run",
            action="store_true",
            help="check and count what would be added; add nothing",
        )

    def handle(self, *args: Any, verb: str, **options: Any) -> None:
        if verb == "export":
            self._export(channel=options["channel"], output=options["output"])
        else:
            self._import(**{k: options[k] for k in ("file", "channel", "reason", "dry_run")})

    def _export(self, *, channel: str | None, output: str) -> None:
        rows = Suppression.objects.order_by("created_at", "id")
        if channel:
            rows = rows.filter(channel=channel)
        target: TextIO = sys.stdout if output == "-" else open(output, "w", newline="")  # noqa: SIM115
        try:
            writer = csv.writer(target)
            writer.writerow(COLUMNS)
            count = 0
            for row in rows.iterator():
                writer.writerow(
                    [
                        row.channel,
                        row.recipient,
                        row.scope,
                        row.reason,
                        row.source,
                        row.created_at.isoformat(),
                    ]
                )
                count += 1
        finally:
            if target is not sys.stdout:
                target.close()
        self.stderr.write(f"{count} suppression(s) exported.")

    def _import(self, *, file: str, channel: str | None, reason: str, dry_run: bool) -> None:
        try:
            text = sys.stdin.read() if file == "-" else Path(file).read_text(encoding="utf-8-sig")
        except OSError as exc:
            raise CommandError(f"cannot read {file}: {exc.strerror}") from exc
        reader = csv.DictReader(text.splitlines())
        header = set(reader.fieldnames or [])
        required = REQUIRED - {"channel"} if channel else REQUIRED
        missing, unknown = required - header, header - set(COLUMNS)
        if missing or unknown:
            optional = [name for name in COLUMNS if name not in required]
            raise CommandError(
                f"{file}: the header must name {' and '.join(sorted(required))} and may name "
                f"{', '.join(optional)} (missing: {', '.join(sorted(missing)) or 'none'}; "
                f"unknown: {', '.join(sorted(unknown)) or 'none'}); nothing was added"
            )
        rows = list(reader)
        entries, invalid = [], []
        for line, row in enumerate(rows, start=2):
            try:
                entries.append(self._entry(row, channel=channel, reason=reason))
            except ValueError as exc:
                invalid.append(f"line {line}: {exc}")
        if dry_run:
            added, existing = self._preview(entries)
        else:
            added = existing = 0
            source = command_actor("suppressions import")
            with transaction.atomic():
                for entry in progress(entries, total=len(entries), description="importing"):
                    _, created = suppression_add(**{**entry, "source": entry["source"] or source})
                    added, existing = added + created, existing + (not created)
        for problem in invalid:
            self.stderr.write(problem)
        verb = "would be added" if dry_run else "added"
        self.stdout.write(
            f"{len(entries)} valid row(s): {added} {verb}, {existing} already there; "
            f"{len(invalid)} invalid row(s) skipped."
        )
        if invalid:
            raise CommandError(f"{len(invalid)} invalid row(s) (listed above) were skipped")

    @staticmethod
    def _preview(entries: list[dict[str, str]]) -> tuple[int, int]:
        """(added, already there) as the import would count them, adding nothing: an entry the
        list holds, or an earlier row of the file, is already there."""
        keys = [(entry["channel"], entry["recipient"], entry["scope"]) for entry in entries]
        present = suppressions_present(keys)
        added = 0
        for key in keys:
            if key not in present:
                added += 1
                present.add(key)
        return added, len(keys) - added

    @staticmethod
    def _entry(row: dict[str, Any], *, channel: str | None, reason: str) -> dict[str, str]:
        row_channel = (row.get("channel") or channel or "").strip()
        recipient = recipient_checked(channel=row_channel, recipient=row.get("recipient") or "")
        scope = (row.get("scope") or SuppressionScope.ALL).strip()
        if scope not in SuppressionScope.values:
            raise ValueError(f"scope {scope!r} is not one of {', '.join(SuppressionScope.values)}")
        row_reason = (row.get("reason") or reason).strip()
        if row_reason not in SuppressionReason.values:
            raise ValueError(
                f"reason {row_reason!r} is not one of {', '.join(SuppressionReason.values)}"
            )
        return {
            "channel": row_channel,
            "recipient": recipient,
            "scope": scope,
            "reason": row_reason,
            "source": (row.get("source") or "").strip(),
        }

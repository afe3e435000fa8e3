"""`manage.py runs_action`: POST /api/triggers/actions/ from a shell (docs/bulk-actions.md)."""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Iterator
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from common.actors import command_actor
from common.cli import progress
from triggers.actions import (
    IDS_MAX,
    ActionKeyReused,
    ActionTooBig,
    action_chunk,
    action_filter_of,
    action_preview,
    action_start,
)
from triggers.actions_api import ActionFilterSerializer
from triggers.models import TriggerAction, TriggerActionKind, TriggerActionStatus, TriggerStatus

# The filter's fields, each a flag of the same name.
_FILTER_FLAGS: list[str] = list(ActionFilterSerializer().fields.keys())
# How long the command waits before it looks again at an action whose chunk a worker holds.
HELD_POLL_SECONDS = 0.2


class Command(BaseCommand):
    help = (
        "Cancel, retry or replay every run a filter matches (as POST /api/triggers/actions/), "
        "with a progress bar. The command works the action's chunks itself, beside the workers "
        "(each chunk under a lease: never twice). Exits 1 if a run could not be acted on."
    )

    def add_arguments(self, parser):
        parser.add_argument("action", choices=TriggerActionKind.values)
        parser.add_argument("--workflow", help="runs of this workflow (its key)")
        parser.add_argument(
            "--status",
            action="append",
            choices=TriggerStatus.values,
            help="runs in this status (repeat for several)",
        )
        parser.add_argument("--created-after", help="runs created at or after (ISO 8601)")
        parser.add_argument("--created-before", help="runs created before (ISO 8601)")
        parser.add_argument("--node", help="runs whose current node is this")
        parser.add_argument("--error-contains", help="runs whose last error contains this")
        parser.add_argument("--recipient", help="runs for this recipient (their id)")
        parser.add_argument(
            "--ids", nargs="+", metavar="ID", help=f"these runs (at most {IDS_MAX})"
        )
        parser.add_argument(
            "--idempotency-key", help="the same key resumes the same action, starting nothing"
        )
        parser.add_argument("--dry-run", action="store_true", help="count and list, change nothing")

    def handle(self, *args: Any, action: str, dry_run: bool, **options: Any) -> None:
        run_filter = action_filter_of(_checked_filter(options))
        try:
            if dry_run:
                matched, sample = action_preview(action, run_filter)
                for run in sample:
                    self.stdout.write(f"{run.pk} {run.workflow.key} {run.status}: {run.last_error}")
                self.stdout.write(f"{matched} run(s) would be acted on ({action}).")
                return
            started, created = action_start(
                kind=action,
                run_filter=run_filter,
                actor=command_actor("runs_action"),
                idempotency_key=options["idempotency_key"] or "",
            )
        except (ActionTooBig, ActionKeyReused) as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(
            f"Bulk action {started.pk} ({action}): {started.matched} run(s) matched"
            + ("" if created else ", asked before")
            + "."
        )
        for _ in progress(
            self._worked(started.pk, started.cursor), total=started.matched, description=action
        ):
            pass
        ended = TriggerAction.objects.get(pk=started.pk)
        self.stdout.write(
            f"{ended.status}: {ended.done} done, {ended.skipped} skipped, {ended.errors} error(s)."
        )
        for error in ended.error_sample:
            self.stderr.write(f"{error['run']}: {error['error']}")
        if ended.status == TriggerActionStatus.FAILED:
            raise CommandError(f"the action failed: {ended.last_error}")
        if ended.errors:
            raise CommandError(f"{ended.errors} run(s) could not be acted on")

    @staticmethod
    def _worked(action_id: Any, cursor: int) -> Iterator[None]:
        """Work the action's chunks until it ends, one item per run reached (the progress bar's),
        whoever did the chunk: this command, or a worker holding it meanwhile."""
        worker = f"{socket.gethostname()}:{os.getpid()}:runs_action"
        while True:
            reached = action_chunk(action_id=action_id, worker_id=worker)
            action = TriggerAction.objects.get(pk=action_id)
            yield from (None for _ in range(action.cursor - cursor))
            cursor = action.cursor
            if action.status != TriggerActionStatus.RUNNING:
                return
            if reached is None:  # a worker holds its next chunk, or it is not due yet
                time.sleep(HELD_POLL_SECONDS)


def _checked_filter(options: dict[str, Any]) -> dict[str, Any]:
    """The filter of the command's flags, checked as the API checks it (ActionFilterSerializer);
    a CommandError naming the flag."""
    given = {name: options[name] for name in _FILTER_FLAGS if options.get(name) is not None}
    if not given:
        flags = ", ".join(f"--{name.replace('_', '-')}" for name in _FILTER_FLAGS)
        raise CommandError(f"give at least one of {flags} (an action on every run is not offered)")
    checked = ActionFilterSerializer(data=given)
    if not checked.is_valid():
        errors = checked.errors
        raise CommandError(
            "; ".join(f"--{name.replace('_', '-')}: {_message(errors[name])}" for name in errors)
        )
    return dict(checked.validated_data)


def _message(detail: Any) -> str:
    if isinstance(detail, dict):
        return "; ".join(f"{key}: {_message(value)}" for key, value in detail.items())
    if isinstance(detail, list):
        return "; ".join(_message(item) for item in detail)
    return str(detail)

"""What the operator commands (manage.py) take on their command line about workflows; the
helpers every command uses are common/cli.py's."""

from __future__ import annotations

from django.core.management.base import CommandError

from workflows.models import Workflow


def existing_workflow_key(value: str | None, *, option: str = "--workflow") -> str | None:
    """An optional workflow key from an option, checked: None when absent, CommandError when it
    is empty or names no workflow (a typo must not read as "0 of 0, all fine")."""
    if value is None:
        return None
    key = value.strip()
    if not key:
        raise CommandError(f"{option}: give a workflow key (it was empty)")
    if not Workflow.objects.filter(key=key).exists():
        raise CommandError(f"{option}: no workflow {key!r}")
    return key

from datetime import UTC, datetime, timedelta

from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from triggers.api_keys import api_key_create
from triggers.models import ApiKeyScope
from workflows.models import Workflow


class Command(BaseCommand):
    help = (
        "Create an API key for a client. The key is printed once, alone on the last line. "
        "A name already in use, or an empty one, a wrong scope, workflow key or expiry, is an "
        "error (exit status 1)."
    )

    def add_arguments(self, parser):
        parser.add_argument("name", help="who the key is for, e.g. billing-service; unique")
        parser.add_argument(
            "--scope",
            choices=ApiKeyScope.values,
            default=ApiKeyScope.TRIGGER,
            help="trigger (the default): create, read and cancel triggers, read workflows; "
            "admin: everything (workflows, webhooks, workers, deletes, health details)",
        )
        parser.add_argument(
            "--workflow",
            action="append",
            default=[],
            metavar="KEY",
            help="limit the key to this workflow (repeat for several; trigger keys only)",
        )
        expiry = parser.add_mutually_exclusive_group()
        expiry.add_argument(
            "--expires-in-days", type=float, metavar="N", help="the key stops working in N days"
        )
        expiry.add_argument(
            "--expires-at",
            metavar="ISO",
            help="the key stops working at this time (ISO 8601; UTC unless it says otherwise)",
        )

    def handle(self, *args, name: str, scope: str, workflow: list[str], **options):
        expires_at = _expiry(options["expires_in_days"], options["expires_at"])
        try:
            api_key, key = api_key_create(
                name=name, scope=scope, workflows=workflow, expires_at=expires_at
            )
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        unknown = sorted(set(api_key.workflows) - set(_existing(api_key.workflows)))
        if unknown:
            self.stderr.write(f"Note: no workflow {', '.join(unknown)} exists (yet).")
        limits = [f"scope {api_key.scope}"]
        if api_key.workflows:
            limits.append(f"workflows {', '.join(api_key.workflows)}")
        if api_key.expires_at:
            limits.append(f"expires {api_key.expires_at.isoformat()}")
        self.stderr.write(
            f"Created API key {api_key.name!r} ({api_key.prefix}…; {'; '.join(limits)}). "
            "Store it now:"
        )
        self.stdout.write(key)


def _expiry(days: float | None, at: str | None) -> datetime | None:
    if days is not None:
        if days <= 0:
            raise CommandError(f"--expires-in-days must be more than 0 (not {days:g})")
        try:
            return timezone.now() + timedelta(days=days)
        except OverflowError:
            raise CommandError(f"--expires-in-days {days:g} is too far away") from None
    if at is not None:
        try:
            when = datetime.fromisoformat(at)
        except ValueError:
            raise CommandError(
                f"--expires-at must be an ISO 8601 time such as 2027-01-31T18:00Z (not {at!r})"
            ) from None
        return when if timezone.is_aware(when) else timezone.make_aware(when, UTC)
    return None


def _existing(keys: list[str]) -> list[str]:
    return list(Workflow.objects.filter(key__in=keys).values_list("key", flat=True))

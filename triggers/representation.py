"""A trigger as the API shows it, in one place: the REST responses (triggers/api.py) and the
`data.trigger` of every event that announces a change to it (triggers/announce.py). The events
of a step's release are built here from the run as claimed; the release overlays the columns it
set, written by the database as they are here (`notiflow_api_time_v1` for a time, triggers
migration 0024; tests/test_rule_homes.py holds the two equal)."""

from __future__ import annotations

from datetime import datetime, tzinfo
from functools import lru_cache
from typing import Any

from django.utils import timezone

from triggers.models import TriggerInstance


def trigger_json(
    instance: TriggerInstance, *, workflow_key: str | None = None, version: int | None = None
) -> dict[str, Any]:
    """The trigger as TriggerOutputSerializer's fields (trigger_fields()) would render it,
    written out: DRF built eighteen fields afresh for every response, the largest single cost of
    an intake request after the database and the broker. `workflow_key` and `version`, when the caller knows
    them, save the queries for the workflow and its version."""
    zone = timezone.get_current_timezone()  # once: asking for it costs more than the rest

    def moment(value: datetime | None) -> str | None:
        return _datetime(value, zone)

    return {
        "id": str(instance.pk),
        "workflow": instance.workflow.key if workflow_key is None else workflow_key,
        "workflow_version": instance.workflow_version.number if version is None else version,
        "idempotency_key": instance.idempotency_key,
        "cancellation_key": instance.cancellation_key,
        "recipient": instance.recipient,
        "locale": instance.locale,
        "tenant": instance.tenant,
        "payload": instance.payload,
        "status": instance.status,
        "priority": instance.priority,
        "cursor": instance.cursor,
        "vars": instance.vars,
        "attempts": instance.attempts,
        "available_at": moment(instance.available_at),
        "lease_until": moment(instance.lease_until),
        "leased_by": instance.leased_by,
        "last_error": instance.last_error,
        "created_at": moment(instance.created_at),
        "updated_at": moment(instance.updated_at),
        "completed_at": moment(instance.completed_at),
        "deleted_at": moment(instance.deleted_at),
        "delete_reason": instance.delete_reason,
        "trace_id": instance.trace_id,
    }


@lru_cache(maxsize=1)
def trigger_fields() -> tuple[str, ...]:
    """The trigger's fields as the API shows them, in order: those trigger_json writes, the one
    list of them (TriggerOutputSerializer's Meta.fields, hence the OpenAPI schema, is this). Read
    off trigger_json itself, so that it keeps its one dict literal, the fastest way to build
    the row; called once the models are loaded (the serializer's module is imported after)."""
    return tuple(trigger_json(TriggerInstance(), workflow_key="", version=0))


def _datetime(value: datetime | None, zone: tzinfo) -> str | None:
    """As DRF's DateTimeField renders it: ISO 8601 in the current time zone `zone`, UTC as `Z`."""
    if value is None:
        return None
    text = value.astimezone(zone).isoformat()
    return text[:-6] + "Z" if text.endswith("+00:00") else text

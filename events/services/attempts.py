"""The attempt log's writes (docs/design.md, "Events and webhooks"; issue 31). An attempt is on
record from before its POST until its outcome, whatever happens to its worker in between:

- attempt_start writes it `started`, in the claim's transaction, committed before the POST;
- attempt_finish writes its outcome once the POST is over (the one change the append-only guard
  allows a row, events migration 0003);
- attempts_abandon finishes, as a failure, the attempt a worker started and never finished (it
  died mid-POST): the claim that takes the delivery after its lease expired calls it, so that
  attempt counts against NOTIFLOW_WEBHOOK_MAX_ATTEMPTS like any failed one.
"""

from __future__ import annotations

from django.db.models.expressions import RawSQL

from events.models import AttemptState, WebhookAttempt, WebhookDelivery
from events.services.sender import PostResult

ABANDONED = "no answer recorded: the worker stopped during the attempt (its lease expired)"

# How long an abandoned attempt ran, at most: from its start until it was found abandoned.
_SINCE_START_MS = RawSQL(
    "greatest(0, (extract(epoch FROM clock_timestamp() - created_at) * 1000)::integer)", []
)


def attempt_start(*, delivery: WebhookDelivery) -> int:
    """Record attempt number `delivery.attempts` of `delivery` (with its event and endpoint) as
    started, in the caller's transaction; its id."""
    return WebhookAttempt.objects.create(
        delivery_id=delivery.pk,
        endpoint_id=delivery.endpoint_id,
        event_id=delivery.event.event_id,
        event_type=delivery.event.type,
        attempt=delivery.attempts,
        state=AttemptState.STARTED,
        duration_ms=0,
    ).pk


def attempt_finish(*, attempt_id: int, result: PostResult) -> bool:
    """Write the outcome of a started attempt. False when it was finished already: found
    abandoned by a later claim, whose account of it stands."""
    return bool(
        WebhookAttempt.objects.filter(pk=attempt_id, state=AttemptState.STARTED).update(
            state=AttemptState.FINISHED,
            status_code=result.status_code,
            error=result.error,
            duration_ms=result.duration_ms,
        )
    )


def attempts_abandon(*, delivery_id: int) -> int:
    """Finish every started attempt of a delivery as failed with no answer (ABANDONED): called
    under the delivery's row lock by the claim that took it after its lease expired, so no
    attempt of it is in flight. How many there were."""
    return WebhookAttempt.objects.filter(
        delivery_id=delivery_id, state=AttemptState.STARTED
    ).update(state=AttemptState.FINISHED, error=ABANDONED, duration_ms=_SINCE_START_MS)

"""The webhook dispatcher (docs/design/rules.md, rule 10): claim a due delivery, POST it signed, record
the attempt and what it means. At least once, never lost, never endless:

- a delivery is leased work (common/leased_work.py, events/work.py): claimed under a lease on
  the database's clock (SKIP LOCKED, then `lease_until`), so a worker killed mid-POST leaves it
  to be claimed again once the lease expires, with the same `webhook-id`;
- the claim (one statement: `notiflow_delivery_claim_v1`, events migration 0004) counts the
  attempt and records it as started (events.services.attempts) in its own committed
  transaction, before the POST; the claim after an expired lease finishes that attempt as
  failed, and past NOTIFLOW_WEBHOOK_MAX_ATTEMPTS fails the delivery instead of POSTing again, so
  the cap and the disable rule hold even when every attempt kills its worker;
- one endpoint has at most NOTIFLOW_WEBHOOK_ENDPOINT_CONCURRENCY deliveries in flight: a claim
  beyond that defers the delivery by one attempt's deadline (claims of one endpoint take turns
  on its row, so the count cannot be outrun);
- every outcome is written fenced by the lease token, with its attempt, in one statement
  (`notiflow_delivery_finish_v1`), its back-off due at the database's clock plus the wait
  computed here;
- nudges are only nudges: deliveries_sweep (celery beat) re-nudges every pending delivery that
  is due and not leased, or whose lease expired, whatever happened to its message.

2xx is delivered. 410 Gone disables the endpoint at once and leaves the delivery pending (a
disabled endpoint keeps its events; enabling it delivers them). Anything else, or no answer
within the attempt's deadline (events.services.sender), is retried after
NOTIFLOW_WEBHOOK_RETRY_BASE_SECONDS doubled per attempt, with jitter, up to
NOTIFLOW_WEBHOOK_MAX_ATTEMPTS attempts; then failed, and NOTIFLOW_WEBHOOK_DISABLE_AFTER failed
events in a row disable the endpoint.
"""

from __future__ import annotations

import json
import logging
import time
import uuid
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models.functions import Now

from common import tracing
from common.backoff import backoff
from common.db import fetchone_prepared
from common.leased_work import nudge_schedule, work_sweep
from common.leases import lease_token
from common.metrics import webhook_delivery_observe
from events.dispatch import deliveries_enqueue_on_commit
from events.hooks import RUN_TRACE_CONTEXT
from events.models import DeliveryStatus, OutboxEvent, WebhookDelivery, WebhookEndpoint
from events.services.envelope import event_body
from events.services.sender import PostResult, post_signed
from events.sql import DELIVERY_CLAIM_SQL, DELIVERY_FINISH_SQL
from events.work import DELIVERIES

logger = logging.getLogger(__name__)

GONE = 410

# What notiflow_delivery_claim_v1 says of a delivery it took: claimed, or not to be POSTed.
CLAIMED, GAVE_UP, DEFERRED = "claimed", "failed", "deferred"


@dataclass(frozen=True)
class Claimed:
    """A delivery this worker holds the lease on, with what its POST needs: its attempt (on
    record as started, number `attempts`), its endpoint's URL and secret, and its event."""

    delivery_id: int
    token: str
    attempt_id: int
    attempts: int
    url: str
    secret: str
    event: OutboxEvent


def delivery_claim(delivery_id: int, *, worker_id: str) -> Claimed | None:
    """Take the lease on delivery `delivery_id` if it is due, its endpoint enabled, and nobody
    holds it; count its attempt and record it as started; commit (one statement). None when it
    was not due, or when instead:

    - it comes back from an expired lease at the attempt cap: the attempt its last worker
      never finished is recorded failed and the delivery fails, as a last failed POST would;
    - its endpoint already has NOTIFLOW_WEBHOOK_ENDPOINT_CONCURRENCY deliveries in flight: it
      is deferred by one attempt's deadline (and nudged then).
    """
    token = lease_token(worker_id)
    defer = settings.NOTIFLOW_WEBHOOK_TIMEOUT_SECONDS
    defer_nudged, countdown = nudge_schedule(defer)
    row = fetchone_prepared(
        DELIVERY_CLAIM_SQL,
        {
            "id": delivery_id,
            "token": token,
            "lease": settings.NOTIFLOW_LEASE_SECONDS,
            "max_attempts": settings.NOTIFLOW_WEBHOOK_MAX_ATTEMPTS,
            "concurrency": settings.NOTIFLOW_WEBHOOK_ENDPOINT_CONCURRENCY,
            "defer": defer,
            "defer_nudged": defer_nudged,
            "disable_after": settings.NOTIFLOW_WEBHOOK_DISABLE_AFTER,
        },
    )
    if row is None:
        return None
    outcome, abandoned, attempt_id, attempts, url, secret, *event = row
    if abandoned:
        logger.warning("webhook delivery %s: its last attempt never finished", delivery_id)
    if outcome == DEFERRED and defer_nudged:
        deliveries_enqueue_on_commit([delivery_id], countdown=countdown)
    if outcome != CLAIMED:
        return None
    return Claimed(delivery_id, token, attempt_id, attempts, url, secret, _event_of(event))


def _event_of(columns: list[Any]) -> OutboxEvent:
    """The claimed delivery's event, from the claim's columns (the body is built from it). Its
    `data` arrives as JSON text, as Django has psycopg load every jsonb."""
    event_pk, event_id, event_type, trigger_id, workflow_key, data, event_time = columns
    return OutboxEvent(
        id=event_pk,
        event_id=event_id,
        type=event_type,
        trigger_id=trigger_id,
        workflow_key=workflow_key,
        data=json.loads(data),
        time=event_time,
    )


def delivery_send(delivery_id: int, *, worker_id: str) -> str | None:
    """Claim, POST and record one delivery; its new status, or None when it was not claimed.
    The POST ends within its deadline (events.services.sender); should anything still stop it
    (the task's soft time limit, a bug), the attempt is recorded as failed with the error.
    While tracing is on, the attempt of an event about a run is a span of the run's trace
    (`_traced`)."""
    traced_from = tracing.clock_ns() if tracing.active() else None
    claimed = delivery_claim(delivery_id, worker_id=worker_id)
    if claimed is None:
        return None
    if traced_from is not None:
        return _traced(claimed, started_ns=traced_from)
    return delivery_record(claimed, _post(claimed))


def _post(claimed: Claimed) -> PostResult:
    started = time.monotonic()
    try:
        result = post_signed(
            url=claimed.url,
            secret=claimed.secret,
            message_id=str(claimed.event.event_id),
            body=event_body(claimed.event),
        )
    except Exception as exc:
        logger.exception("webhook delivery %s: the POST raised", claimed.delivery_id)
        spent = int((time.monotonic() - started) * 1000)
        result = PostResult(None, f"{type(exc).__name__}: {exc}"[:1000], spent)
    webhook_delivery_observe(outcome=_answer(result), seconds=result.duration_ms / 1000)
    return result


def _traced(claimed: Claimed, *, started_ns: int) -> str | None:
    """The attempt as delivery_send makes it, in a span whose parent is the stored trace context
    of the run the event is about (docs/design/observability.md, "Traces"), from before the claim to after
    the finish; read with a statement of its own, only while tracing is on. An event about no
    run (a ping, an endpoint's), or about a run without a context, is delivered without a span
    (its HTTP call, parentless, starts no trace)."""
    event = claimed.event
    context = ""
    if event.trigger_id is not None:
        context = next(filter(None, (read(event.trigger_id) for read in RUN_TRACE_CONTEXT)), "")
    if not tracing.trace_id(context):
        return delivery_record(claimed, _post(claimed))
    with tracing.delivery_span(
        trace_context=context,
        trigger_id=str(event.trigger_id),
        workflow_key=event.workflow_key,
        event_type=event.type,
        delivery_id=claimed.delivery_id,
        attempt=claimed.attempts,
        started_ns=started_ns,
    ) as span:
        result = _post(claimed)
        status = delivery_record(claimed, result)
        tracing.delivery_outcome(span, answer=_answer(result), status=status, error=_error(result))
        return status


def _retry_in(attempts: int) -> timedelta:
    return backoff(
        attempts,
        base=settings.NOTIFLOW_WEBHOOK_RETRY_BASE_SECONDS,
        jitter=settings.NOTIFLOW_RETRY_JITTER,
        maximum=settings.NOTIFLOW_RETRY_MAX_SECONDS,
    )


def _answer(result: PostResult) -> str:
    """What the receiver's answer means: delivered (2xx), gone (410: the endpoint is disabled
    and the delivery kept), or failed (anything else, or no answer)."""
    if result.delivered:
        return "delivered"
    return "gone" if result.status_code == GONE else "failed"


def _error(result: PostResult) -> str:
    return result.error or (f"HTTP {result.status_code}" if not result.delivered else "")


def delivery_record(claimed: Claimed, result: PostResult) -> str | None:
    """Finish the attempt's record (always: it happened) and, while the lease still holds, write
    its outcome, in one statement. Returns the delivery's new status, or None when the lease was
    lost meanwhile. A retry is due at the database's clock plus its back-off, nudged with that
    countdown or left to the sweeper (common.leased_work.nudge_schedule)."""
    retry = _retry_in(claimed.attempts).total_seconds()
    retry_nudged, _ = nudge_schedule(retry)
    row = fetchone_prepared(
        DELIVERY_FINISH_SQL,
        {
            "id": claimed.delivery_id,
            "token": claimed.token,
            "attempt_id": claimed.attempt_id,
            "answer": _answer(result),
            "status_code": result.status_code,
            "error": _error(result),
            "duration_ms": result.duration_ms,
            "retry": retry,
            "retry_nudged": retry_nudged,
            "max_attempts": settings.NOTIFLOW_WEBHOOK_MAX_ATTEMPTS,
            "disable_after": settings.NOTIFLOW_WEBHOOK_DISABLE_AFTER,
        },
    )
    if row is None:
        return None
    status, countdown = row
    if countdown is not None:
        deliveries_enqueue_on_commit([claimed.delivery_id], countdown=countdown)
    return str(status)


def endpoint_disable(endpoint_id: uuid.UUID, *, reason: str) -> bool:
    """Disable an endpoint (its deliveries stay pending). False when it already was."""
    return bool(
        WebhookEndpoint.objects.filter(id=endpoint_id, disabled_at=None).update(
            disabled_at=Now(), disabled_reason=reason[:500], updated_at=Now()
        )
    )


@transaction.atomic
def endpoint_enable(endpoint_id: uuid.UUID) -> list[int]:
    """Enable an endpoint and deliver what waited for it: its pending deliveries start their
    attempts afresh, due now. Returns their ids (nudged after commit)."""
    updated = WebhookEndpoint.objects.filter(id=endpoint_id).exclude(disabled_at=None)
    if not updated.update(disabled_at=None, disabled_reason="", failed_events=0, updated_at=Now()):
        return []
    pending = WebhookDelivery.objects.filter(endpoint_id=endpoint_id, status=DeliveryStatus.PENDING)
    ids = list(pending.values_list("id", flat=True))
    pending.update(attempts=0, available_at=Now(), nudged_at=Now(), updated_at=Now())
    deliveries_enqueue_on_commit(ids)
    return ids


@transaction.atomic
def event_resend(event_id: int, *, endpoint_id: uuid.UUID | None = None) -> list[int]:
    """Send an event again to its endpoints (or to one): each of its deliveries becomes pending,
    due now, with its attempts afresh, and keeps the event's `webhook-id` (a receiver that saw it
    may drop it). Returns the ids nudged after commit (not those of disabled endpoints: they
    go when the endpoint is enabled)."""
    deliveries = WebhookDelivery.objects.filter(event_id=event_id)
    if endpoint_id is not None:
        deliveries = deliveries.filter(endpoint_id=endpoint_id)
    deliveries.update(
        status=DeliveryStatus.PENDING,
        attempts=0,
        available_at=Now(),
        lease_until=None,
        leased_by="",
        nudged_at=Now(),
        delivered_at=None,
        updated_at=Now(),
    )
    ids = list(deliveries.filter(endpoint__disabled_at=None).values_list("id", flat=True))
    deliveries_enqueue_on_commit(ids)
    return ids


def deliveries_sweep(*, batch: int | None = None) -> int:
    """Nudge every pending delivery to an enabled endpoint whose lease expired, then every one
    due (or due within a sweep interval) and never nudged, or nudged more than
    NOTIFLOW_RENUDGE_AFTER_SECONDS ago while NOTIFLOW_WEBHOOK_QUEUE is short: the leased-work
    sweep (common/leased_work.py) of events/work.py's DELIVERIES. How many were nudged."""
    return sum(len(nudges) for nudges in work_sweep(DELIVERIES, batch=batch))

"""The webhook dispatcher (docs/design.md, rule 10): claim a due delivery, POST it signed, record
the attempt and what it means. At least once, never lost, never endless:

- a delivery is claimed under a lease (FOR UPDATE SKIP LOCKED, then `lease_until`), so a worker
  killed mid-POST leaves it to be claimed again once the lease expires, with the same
  `webhook-id`;
- the claim counts the attempt and records it as started (events.services.attempts) in its own
  committed transaction, before the POST; the claim after an expired lease finishes that
  attempt as failed, and past NOTIFLOW_WEBHOOK_MAX_ATTEMPTS fails the delivery instead of
  POSTing again, so the cap and the disable rule hold even when every attempt kills its worker;
- one endpoint has at most NOTIFLOW_WEBHOOK_ENDPOINT_CONCURRENCY deliveries in flight: a claim
  beyond that defers the delivery by one attempt's deadline (claims of one endpoint take turns
  on its row, so the count cannot be outrun);
- every outcome is written fenced by the lease token, with its attempt, in one transaction;
- nudges are only nudges: deliveries_sweep (celery beat) re-nudges every pending delivery that
  is due and not leased, whatever happened to its message.

2xx is delivered. 410 Gone disables the endpoint at once and leaves the delivery pending (a
disabled endpoint keeps its events; enabling it delivers them). Anything else, or no answer
within the attempt's deadline (events.services.sender), is retried after
NOTIFLOW_WEBHOOK_RETRY_BASE_SECONDS doubled per attempt, with jitter, up to
NOTIFLOW_WEBHOOK_MAX_ATTEMPTS attempts; then failed, and NOTIFLOW_WEBHOOK_DISABLE_AFTER failed
events in a row disable the endpoint.
"""

from __future__ import annotations

import logging
import time
import uuid
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Case, F, Q, QuerySet, Value, When
from django.db.models.functions import Now
from django.utils import timezone

from common.backoff import backoff
from common.broker import nudges_waiting
from common.leases import LeaseExpired, lease_free_q
from events.dispatch import deliveries_enqueue_on_commit
from events.models import DeliveryStatus, WebhookDelivery, WebhookEndpoint
from events.services.attempts import ABANDONED, attempt_finish, attempt_start, attempts_abandon
from events.services.envelope import event_body
from events.services.sender import PostResult, post_signed

logger = logging.getLogger(__name__)

GONE = 410


@dataclass(frozen=True)
class Claimed:
    """A delivery this worker holds the lease on, with what it needs to send it, and the id of
    its attempt, on record as started."""

    delivery: WebhookDelivery
    token: str
    attempt_id: int


def _due() -> Q:
    return Q(status=DeliveryStatus.PENDING, available_at__lte=Now(), endpoint__disabled_at=None) & (
        lease_free_q(Now())
    )


def delivery_claim(delivery_id: int, *, worker_id: str) -> Claimed | None:
    """Take the lease on delivery `delivery_id` if it is due, its endpoint enabled, and nobody
    holds it; count its attempt and record it as started; commit. None when it was not due,
    or when instead:

    - it comes back from an expired lease at the attempt cap: the attempt its last worker
      never finished is recorded failed and the delivery fails, as a last failed POST would;
    - its endpoint already has NOTIFLOW_WEBHOOK_ENDPOINT_CONCURRENCY deliveries in flight: it
      is deferred by one attempt's deadline (and nudged then).
    """
    endpoint_id = (
        WebhookDelivery.objects.filter(id=delivery_id).values_list("endpoint_id", flat=True).first()
    )
    if endpoint_id is None:
        return None
    token = f"{worker_id}/{uuid.uuid4().hex[:12]}"
    with transaction.atomic():
        # The endpoint's row first (as deleting or enabling it takes it, then its deliveries):
        # claims to one endpoint take turns, so its count in flight below is not outrun.
        list(WebhookEndpoint.objects.select_for_update(no_key=True).filter(id=endpoint_id))
        delivery = (
            WebhookDelivery.objects.select_for_update(skip_locked=True, of=("self",))
            .select_related("event", "endpoint")
            .filter(_due(), id=delivery_id)
            .first()
        )
        if delivery is None:
            return None
        this = WebhookDelivery.objects.filter(id=delivery.pk)
        # Leased before, and the lease expired: its worker died or froze mid-attempt.
        abandoned = bool(delivery.leased_by)
        if abandoned:
            attempts_abandon(delivery_id=delivery.pk)
            logger.warning(
                "webhook delivery %s: attempt %s never finished", delivery.pk, delivery.attempts
            )
        if delivery.attempts >= settings.NOTIFLOW_WEBHOOK_MAX_ATTEMPTS:
            _give_up(
                this,
                endpoint_id,
                last_status_code=None if abandoned else delivery.last_status_code,
                last_error=ABANDONED if abandoned else delivery.last_error,
            )
            return None
        if _in_flight(endpoint_id) >= settings.NOTIFLOW_WEBHOOK_ENDPOINT_CONCURRENCY:
            _defer(this, delivery.pk)
            return None
        lease_until = Now() + timedelta(seconds=settings.NOTIFLOW_LEASE_SECONDS)
        this.update(
            attempts=F("attempts") + 1,
            lease_until=lease_until,
            leased_by=token,
            nudged_at=None,
            updated_at=Now(),
        )
        delivery.attempts += 1
        attempt_id = attempt_start(delivery=delivery)
    return Claimed(delivery, token, attempt_id)


def _in_flight(endpoint_id: uuid.UUID) -> int:
    """The endpoint's deliveries under a live lease (webhook_delivery_leased_idx)."""
    return WebhookDelivery.objects.filter(
        ~Q(LeaseExpired(Now())),
        endpoint_id=endpoint_id,
        lease_until__isnull=False,
        status=DeliveryStatus.PENDING,
    ).count()


def _defer(this: QuerySet[WebhookDelivery], delivery_id: int) -> None:
    """Due again once one attempt in flight must have ended (its deadline), and nudged then."""
    wait = settings.NOTIFLOW_WEBHOOK_TIMEOUT_SECONDS
    nudge = wait <= settings.NOTIFLOW_MAX_COUNTDOWN_SECONDS
    this.update(
        available_at=Now() + timedelta(seconds=wait),
        nudged_at=Now() if nudge else None,
        lease_until=None,
        leased_by="",
        updated_at=Now(),
    )
    if nudge:
        deliveries_enqueue_on_commit([delivery_id], countdown=wait)


def delivery_send(delivery_id: int, *, worker_id: str) -> str | None:
    """Claim, POST and record one delivery; its new status, or None when it was not claimed.
    The POST ends within its deadline (events.services.sender); should anything still stop it
    (the task's soft time limit, a bug), the attempt is recorded as failed with the error."""
    claimed = delivery_claim(delivery_id, worker_id=worker_id)
    if claimed is None:
        return None
    delivery = claimed.delivery
    started = time.monotonic()
    try:
        result = post_signed(
            url=delivery.endpoint.url,
            secret=delivery.endpoint.secret,
            message_id=str(delivery.event.event_id),
            body=event_body(delivery.event),
        )
    except Exception as exc:
        logger.exception("webhook delivery %s: the POST raised", delivery.pk)
        spent = int((time.monotonic() - started) * 1000)
        result = PostResult(None, f"{type(exc).__name__}: {exc}"[:1000], spent)
    return delivery_record(claimed, result)


def _retry_in(attempts: int) -> timedelta:
    return backoff(
        attempts,
        base=settings.NOTIFLOW_WEBHOOK_RETRY_BASE_SECONDS,
        jitter=settings.NOTIFLOW_RETRY_JITTER,
        maximum=settings.NOTIFLOW_RETRY_MAX_SECONDS,
    )


@transaction.atomic
def delivery_record(claimed: Claimed, result: PostResult) -> str | None:
    """Finish the attempt's record (always: it happened) and, while the lease still holds, write
    its outcome. Returns the delivery's new status, or None when the lease was lost meanwhile.
    The delivery's row is written before the attempt's (the order a claim takes them in)."""
    status = _outcome(claimed, result)
    attempt_finish(attempt_id=claimed.attempt_id, result=result)
    return status


def _outcome(claimed: Claimed, result: PostResult) -> str | None:
    delivery, endpoint = claimed.delivery, claimed.delivery.endpoint
    error = result.error or (f"HTTP {result.status_code}" if not result.delivered else "")
    held = WebhookDelivery.objects.filter(
        id=delivery.pk, leased_by=claimed.token, status=DeliveryStatus.PENDING
    )
    common: dict[str, Any] = {
        "lease_until": None,
        "leased_by": "",
        "last_status_code": result.status_code,
        "last_error": error,
        "updated_at": Now(),
    }
    if result.delivered:
        if not held.update(status=DeliveryStatus.DELIVERED, delivered_at=Now(), **common):
            return None
        WebhookEndpoint.objects.filter(id=endpoint.pk, failed_events__gt=0).update(failed_events=0)
        return DeliveryStatus.DELIVERED
    if result.status_code == GONE:
        # The receiver says the endpoint is gone: stop sending there, keep the event.
        if not held.update(available_at=Now(), nudged_at=None, **common):
            return None
        endpoint_disable(
            endpoint.pk,
            reason=f"the receiver answered 410 Gone ({timezone.now():%Y-%m-%d %H:%M} UTC)",
        )
        return DeliveryStatus.PENDING
    if delivery.attempts >= settings.NOTIFLOW_WEBHOOK_MAX_ATTEMPTS:
        if not _give_up(held, endpoint.pk, last_status_code=result.status_code, last_error=error):
            return None
        return DeliveryStatus.FAILED
    wait = _retry_in(delivery.attempts)
    nudge = wait.total_seconds() <= settings.NOTIFLOW_MAX_COUNTDOWN_SECONDS
    if not held.update(available_at=Now() + wait, nudged_at=Now() if nudge else None, **common):
        return None
    if nudge:
        deliveries_enqueue_on_commit([delivery.pk], countdown=wait.total_seconds())
    return DeliveryStatus.PENDING


def _give_up(
    held: QuerySet[WebhookDelivery],
    endpoint_id: uuid.UUID,
    *,
    last_status_code: int | None,
    last_error: str,
) -> bool:
    """The delivery in `held` fails for good, and counts towards disabling its endpoint
    (NOTIFLOW_WEBHOOK_DISABLE_AFTER events in a row): the one statement of that rule, for a last
    attempt that failed and for one whose worker never finished it. False when `held` matched
    nothing (the lease was lost)."""
    if not held.update(
        status=DeliveryStatus.FAILED,
        lease_until=None,
        leased_by="",
        last_status_code=last_status_code,
        last_error=last_error,
        updated_at=Now(),
    ):
        return False
    limit = settings.NOTIFLOW_WEBHOOK_DISABLE_AFTER
    WebhookEndpoint.objects.filter(id=endpoint_id).update(
        failed_events=F("failed_events") + 1,
        disabled_at=Case(
            When(disabled_at=None, failed_events__gte=limit - 1, then=Now()),
            default=F("disabled_at"),
        ),
        disabled_reason=Case(
            When(
                disabled_at=None,
                failed_events__gte=limit - 1,
                then=Value(f"{limit} events in a row failed to be delivered"),
            ),
            default=F("disabled_reason"),
        ),
    )
    return True


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
    """Nudge every pending delivery that is due (or will be within a sweep interval), not
    leased or leased past expiry, to an enabled endpoint, and never nudged or nudged more than
    NOTIFLOW_RENUDGE_AFTER_SECONDS ago. Oldest first, in batches, each committed before its
    nudges go. Returns how many were nudged.

    Backpressure, as the engine's sweeper has: a delivery nudged before and not yet claimed is
    nudged again only while at most a batch of messages waits in NOTIFLOW_WEBHOOK_QUEUE. Under
    a longer line its nudge is most likely in it, and sending it again would only lengthen the
    line (a chaos run met exactly that: every sweep re-sent every waiting delivery, and the
    flood starved the engine's steps sharing the queue). Never-nudged deliveries and expired
    leases (a claim clears `nudged_at`) are nudged whatever the line."""
    size = batch or settings.NOTIFLOW_SWEEP_BATCH_SIZE
    lookahead = timedelta(seconds=settings.NOTIFLOW_SWEEP_INTERVAL_SECONDS)
    renudge = timedelta(seconds=settings.NOTIFLOW_RENUDGE_AFTER_SECONDS)
    waiting = nudges_waiting([settings.NOTIFLOW_WEBHOOK_QUEUE])
    renudge_lost = waiting is None or waiting <= size
    nudged = 0
    while True:
        with transaction.atomic():
            # The database's clock (docs/design.md, "One clock"): now() in the filters, and read
            # back with the rows for the countdowns, so the worker's clock is never asked.
            lost = Q(nudged_at__lt=Now() - renudge) if renudge_lost else Q(pk__in=[])
            rows = list(
                WebhookDelivery.objects.select_for_update(skip_locked=True, of=("self",))
                .filter(
                    lease_free_q(Now()),
                    Q(nudged_at=None) | lost,
                    status=DeliveryStatus.PENDING,
                    available_at__lte=Now() + lookahead,
                    endpoint__disabled_at=None,
                )
                .annotate(db_now=Now())
                .order_by("available_at")
                .values_list("id", "available_at", "db_now")[:size]
            )
            if not rows:
                return nudged
            now = rows[0][2]
            WebhookDelivery.objects.filter(id__in=[i for i, _, _ in rows]).update(nudged_at=Now())
            due_now = [delivery_id for delivery_id, due, _ in rows if due <= now]
            deliveries_enqueue_on_commit(due_now)
            for delivery_id, due, _ in rows:
                if due > now:  # within the look-ahead: on time, not a sweep late
                    deliveries_enqueue_on_commit([delivery_id], (due - now).total_seconds())
        nudged += len(rows)
        if len(rows) < size:
            return nudged

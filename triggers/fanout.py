"""Fan-out: one trigger request for a topic becomes a run for each subscriber (docs/design/recipients.md,
"Topics and fan-out").

`fanout_start` stores the request (recipients.Fanout) and hands it to the workers; it creates
no run itself, so the answer (202) costs the same for ten subscribers as for a million. The
workers create the runs a chunk at a time (`fanout_chunk`): the next NOTIFLOW_FANOUT_CHUNK_SIZE
subscriptions after the fan-out's cursor, read on the (topic, id) index, go through intake
(`triggers_create`, one statement for the chunk) and the cursor moves past them in the same
transaction. So memory is bounded by the chunk, not the audience, and a chunk is done entirely
or not at all.

Exactly once. Each run's idempotency key is derived from the request's key and the recipient
(`fanout_run_key`): a chunk done again (a chunk rolled back after its runs' commit could not be
told, a fan-out taken again after its worker died) finds its runs already there and creates none.

Leased work (common/leased_work.py; the kind is triggers/work.py's FANOUTS). A chunk task
carries the fan-out's id alone; it claims the fan-out under a lease (fanout_claim.sql, committed
on its own: a fan-out leased or locked by a cancel is skipped), then, in one transaction, locks
it while the lease is still its own, creates the chunk's runs and releases it, fenced by its
token (fanout_release.sql): the cursor past the chunk and, unless that was the last, the next
chunk due now, its task published after commit. So two copies of one task never both do a
chunk, and there is never more than one chain of chunk tasks.

Priority. Each chunk task goes to the workflow's queue at the top of the scale
(FANOUT_CHUNK_PRIORITY), ahead of every run's nudge, its own chunk's runs included, so a backlog
never stands between two chunks; the runs it makes carry the fan-out's priority (the request's,
else the workflow's), so a more urgent trigger's nudge overtakes the audience. The next chunk is
published only when one is done: one short task per fan-out at a time, never one long task.

Resume. The fan-outs' sweep (its own beat entry) nudges a fan-out whose lease expired (its worker
died: the chunk was rolled back) and one whose chunk task was lost (a broker flushed) as it
nudges runs. A chunk that failed or found no live worker is given back, due again after
NOTIFLOW_FANOUT_RESUME_AFTER_SECONDS, its reason in `last_error`.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any
from uuid import UUID, uuid4

from django.conf import settings
from django.db import transaction

from common import tracing
from common.leases import lease_token
from common.metrics import fanout_runs_observe
from recipients.models import Fanout, FanoutStatus, Topic, TopicSubscription
from registry.selectors import live_workers_by_queue, worker_command
from triggers.audience_limits import topic_audience_checked
from triggers.audience_runs import AudienceRuns, RunsPaused, WorkflowGone, audience_runs_create
from triggers.fanout_work import (
    FanoutNudge,
    fanout_chunks_enqueue_on_commit,
    fanout_claim,
    fanout_release,
)
from triggers.services import (
    MAX_IDEMPOTENCY_KEY_LENGTH,
    TriggerRejected,
    TriggerRequest,
    trigger_request_checked,
    workflow_unknown,
)
from workflows.models import Workflow

logger = logging.getLogger(__name__)

# The most recipients one request may exclude.
EXCLUDE_MAX = 1000
_RUN_KEY_PREFIX = "fanout:"


@dataclass(frozen=True)
class FanoutRequest:
    """A trigger request for a topic, as POST /api/triggers/ takes it with `topic`."""

    workflow_key: str
    idempotency_key: str
    topic_key: str
    payload: Any
    exclude: Sequence[str] = ()
    priority: int | None = None
    cancellation_key: str = ""
    # The tenant every run is sent for, or empty (docs/tenants.md).
    tenant: str = ""


def fanout_run_key(request_key: str, recipient: str) -> str:
    """The idempotency key of the run a fan-out with key `request_key` creates for `recipient`:
    readable when it fits (`fanout:<length of the key>:<key>:<recipient>`, the length making it
    unambiguous whatever the key and the id contain), else a hash of that (`fanout:sha256:...`),
    so that it never exceeds the keys' limit."""
    readable = f"{_RUN_KEY_PREFIX}{len(request_key)}:{request_key}:{recipient}"
    if len(readable) <= MAX_IDEMPOTENCY_KEY_LENGTH:
        return readable
    return f"{_RUN_KEY_PREFIX}sha256:{hashlib.sha256(readable.encode()).hexdigest()}"


def fanout_request_hash(request: FanoutRequest, payload_json: str) -> str:
    """The normalised request a fan-out's key was first used with: topic, the excluded ids as a
    set, priority, cancellation key, the tenant when there is one, and payload (keys sorted)."""
    head = [request.topic_key, sorted(set(request.exclude)), request.priority]
    tail: list[Any] = [{"tenant": request.tenant}] if request.tenant else []
    normal = json.dumps([*head, request.cancellation_key, *tail], separators=(",", ":"))
    normal += payload_json
    return hashlib.sha256(normal.encode()).hexdigest()


def fanout_start(
    request: FanoutRequest, *, actor: str = "", admit: Callable[[int], None] | None = None
) -> tuple[Fanout, bool]:
    """The fan-out for (workflow, idempotency key), stored now and handed to the workers after
    commit, or the one stored already when the request is the same (request hash); (fan-out,
    created). Raises TriggerRejected as intake does: 400 (bad field, unknown workflow or topic,
    an audience over NOTIFLOW_FANOUT_MAX_AUDIENCE), 409 (inactive workflow), 422 (the key was
    used with other parameters; `existing_id` is that fan-out), 503 (no live worker serves the
    queue; nothing stored). A new fan-out's audience (its subscribers now, but the excluded) is
    passed to `admit` before it is stored: whatever that raises (the API's rate charge) stores
    nothing."""
    payload_json, _ = trigger_request_checked(_run_request(request, recipient=""))
    _exclude_checked(request.exclude)
    digest = fanout_request_hash(request, payload_json)
    existing = Fanout.objects.filter(
        workflow_key=request.workflow_key, idempotency_key=request.idempotency_key
    ).first()
    if existing is not None:
        return _replayed(existing, digest), False
    queue = _queue_checked(request)
    if not Topic.objects.filter(key=request.topic_key).exists():
        raise TriggerRejected("topic", f"topic {request.topic_key!r} does not exist")
    try:
        audience = topic_audience_checked(request.topic_key, exclude=request.exclude)
    except TriggerRejected as exc:
        raise TriggerRejected(exc.field, f"{exc.message}; nothing was stored") from None
    if admit is not None:
        admit(audience)
    with transaction.atomic():
        fanout, created = Fanout.objects.get_or_create(
            workflow_key=request.workflow_key,
            idempotency_key=request.idempotency_key,
            defaults={
                "topic_key": request.topic_key,
                "request_hash": digest,
                "payload": request.payload,
                "exclude": sorted(set(request.exclude)),
                "priority": request.priority,
                "cancellation_key": request.cancellation_key,
                "tenant": request.tenant,
                "created_by": actor,
                "trace_context": tracing.traceparent(),
            },
        )
        if not created:  # a concurrent request with the key won
            return _replayed(fanout, digest), False
        fanout_chunks_enqueue_on_commit([FanoutNudge(fanout.pk, queue)])
    return fanout, True


def _run_request(request: FanoutRequest, *, recipient: str) -> TriggerRequest:
    return TriggerRequest(
        workflow_key=request.workflow_key,
        idempotency_key=(
            fanout_run_key(request.idempotency_key, recipient)
            if recipient
            else request.idempotency_key
        ),
        payload=request.payload,
        priority=request.priority,
        cancellation_key=request.cancellation_key,
        recipient=recipient,
        tenant=request.tenant,
    )


def _exclude_checked(exclude: Sequence[str]) -> None:
    if len(exclude) > EXCLUDE_MAX or not all(isinstance(key, str) and key for key in exclude):
        raise TriggerRejected(
            "exclude", f"exclude must be a list of at most {EXCLUDE_MAX} recipient ids"
        )


def _replayed(fanout: Fanout, digest: str) -> Fanout:
    if fanout.request_hash != digest:
        raise TriggerRejected(
            "idempotency_key",
            f"idempotency key {fanout.idempotency_key!r} was used with other parameters by "
            f"fan-out {fanout.pk}; nothing was changed. Send the same request again, or use a "
            "new key",
            status_code=422,
            existing_id=str(fanout.pk),
        )
    return fanout


def _queue_checked(request: FanoutRequest) -> str:
    """The workflow's queue, where the chunk tasks go; TriggerRejected when the workflow does
    not exist, is not active, or no live worker serves its queue (as intake refuses)."""
    workflow = Workflow.objects.filter(key=request.workflow_key).first()
    if workflow is None:
        raise workflow_unknown(request.workflow_key)
    if not workflow.active or workflow.current_version_id is None:
        message = f"workflow {request.workflow_key!r} is not active"
        raise TriggerRejected("workflow", message, status_code=409)
    if settings.NOTIFLOW_TRIGGER_REQUIRES_WORKER and workflow.queue not in live_workers_by_queue():
        raise TriggerRejected(
            "workflow",
            f"no live worker serves queue {workflow.queue!r}; start one with: "
            + worker_command(workflow.queue),
            status_code=503,
        )
    return workflow.queue


def fanout_chunk(*, fanout_id: UUID | str, worker_id: str) -> int | None:
    """Create the runs of the fan-out's next chunk under a lease, if the fan-out is running,
    due and free (else None: another task holds it, or it is not to be worked on). The runs,
    the cursor past the chunk, the count and, on the last chunk, `done` are one transaction,
    fenced by the lease's token; the next chunk's task is published after it commits. Returns
    how many runs this chunk created.

    A workflow gone or deactivated fails the fan-out (the runs made so far stay); a run key held
    by a trigger of other parameters is left out and named in `last_error`. A chunk that raises
    (FanoutPaused: no live worker serves the queue) is rolled back and given back, due again
    after NOTIFLOW_FANOUT_RESUME_AFTER_SECONDS, with its reason in `last_error`; then raised."""
    token = lease_token(worker_id)
    if not fanout_claim(fanout_id, token=token):
        return None
    try:
        with transaction.atomic():
            created = _chunk_under_lease(fanout_id, token)
    except Exception as exc:
        reason = f"paused: {exc}" if isinstance(exc, FanoutPaused) else f"chunk failed: {exc!r}"
        fanout_release(
            fanout_id,
            token=token,
            status=FanoutStatus.RUNNING,
            error=reason[:2000],
            wait=settings.NOTIFLOW_FANOUT_RESUME_AFTER_SECONDS,
        )
        raise
    return created


def _chunk_under_lease(fanout_id: UUID | str, token: str) -> int | None:
    # The lock waits for a cancel under way; a fan-out cancelled since the claim is left.
    fanout = (
        Fanout.objects.select_for_update()
        .filter(pk=fanout_id, status=FanoutStatus.RUNNING, leased_by=token)
        .first()
    )
    if fanout is None:
        return None
    room = settings.NOTIFLOW_FANOUT_MAX_AUDIENCE - fanout.created
    size = min(settings.NOTIFLOW_FANOUT_CHUNK_SIZE, room)
    if size <= 0:
        _audience_full(fanout, token)
        return 0
    chunk = _chunk_read(fanout, size)
    try:
        created, refused = _chunk_create(
            _request_of(fanout),
            [key for _, key in chunk],
            actor=fanout.created_by,
            fanout=fanout,
        )
    except WorkflowGone as gone:
        fanout_release(fanout.pk, token=token, status=FanoutStatus.FAILED, error=str(gone))
        logger.warning("fan-out %s failed: %s", fanout.pk, gone)
        return 0
    done = len(chunk) < size
    fanout_release(
        fanout.pk,
        token=token,
        status=FanoutStatus.DONE if done else FanoutStatus.RUNNING,
        cursor=chunk[-1][0] if chunk else fanout.cursor,
        created=created,
        error=f"{len(refused)} run(s) left out: {refused[0]}" if refused else "",
        nudged=not done,
    )
    if not done:
        fanout_chunks_enqueue_on_commit([FanoutNudge(fanout.pk, _queue_of(fanout))])
    fanout_runs_observe(workflow=fanout.workflow_key, created=created)
    return created


# A chunk that found no live worker serving the queue: nothing was changed and the fan-out is
# due again after NOTIFLOW_FANOUT_RESUME_AFTER_SECONDS (the primitive's RunsPaused).
FanoutPaused = RunsPaused


def _chunk_create(
    request: FanoutRequest, recipients: list[str], *, actor: str, fanout: Fanout
) -> tuple[int, list[str]]:
    """The runs of one chunk, one per recipient, as intake would create them for requests of
    `request`'s workflow, payload, priority and cancellation key with the derived keys, through
    the audience's insert primitive (triggers/audience_runs.py): (how many were created, why
    the others were left out). Raises FanoutPaused (RunsPaused) when a new run needs a live
    worker and none serves the queue, WorkflowGone when the workflow is deleted or inactive."""
    # The payload as intake writes it; the tenant was checked when the fan-out was made (one
    # deleted since leaves its runs an empty tenant, as it does runs already made).
    payload_json, _ = trigger_request_checked(
        _run_request(dataclasses.replace(request, tenant=""), recipient="")
    )
    runs = AudienceRuns(
        workflow_key=request.workflow_key,
        payload_json=payload_json,
        priority=request.priority,
        cancellation_key=request.cancellation_key,
        tenant=request.tenant,
        actor=actor,
    )
    keys = [fanout_run_key(request.idempotency_key, recipient) for recipient in recipients]
    traced = _traced_runs(fanout, len(recipients))
    return audience_runs_create(runs, keys, recipients, traced=traced)


def _traced_runs(fanout: Fanout, count: int) -> list[tuple[str, ...]]:
    """While tracing, for each of a chunk's `count` runs, its id and its trace's context: a
    trace of its own whose root, an instant `fanout run` span naming the run, links to the
    fan-out's intake span (docs/design/observability.md, "Traces"); the insert stores them with the runs.
    Untraced (tracing off, or the fan-out made untraced), nothing: the insert makes the ids. A
    run whose key was held already (a chunk done again) leaves its root span alone in its trace."""
    if not fanout.trace_context or not tracing.active():
        return [()] * count
    ids = [str(uuid4()) for _ in range(count)]
    contexts = tracing.linked_roots(
        "fanout run",
        link=fanout.trace_context,
        attributes=[
            {"notiflow.trigger.id": id, "notiflow.fanout.id": str(fanout.pk)} for id in ids
        ],
    )
    return list(zip(ids, contexts, strict=True))


def _chunk_read(fanout: Fanout, size: int) -> list[tuple[int, str]]:
    """The next `size` subscriptions after the cursor, in id order, but the excluded ones:
    (subscription id, recipient key) pairs. The excluded ones are skipped in SQL, so a chunk
    may cover more than `size` ids; the cursor goes to the last one read."""
    rows = TopicSubscription.objects.filter(topic_id=fanout.topic_key, id__gt=fanout.cursor)
    if fanout.exclude:
        rows = rows.exclude(recipient_id__in=fanout.exclude)
    return list(rows.order_by("id").values_list("id", "recipient_id")[:size])


def _request_of(fanout: Fanout) -> FanoutRequest:
    return FanoutRequest(
        workflow_key=fanout.workflow_key,
        idempotency_key=fanout.idempotency_key,
        topic_key=fanout.topic_key,
        payload=fanout.payload,
        exclude=fanout.exclude,
        priority=fanout.priority,
        cancellation_key=fanout.cancellation_key,
        tenant=fanout.tenant,
    )


def _audience_full(fanout: Fanout, token: str) -> None:
    """The fan-out made NOTIFLOW_FANOUT_MAX_AUDIENCE runs: done, saying so when its topic grew
    past that after the request (subscribers are left without a run)."""
    more = _chunk_read(fanout, 1)
    error = (
        f"stopped at NOTIFLOW_FANOUT_MAX_AUDIENCE ({settings.NOTIFLOW_FANOUT_MAX_AUDIENCE} "
        "runs): the topic grew past it after the request"
    )
    fanout_release(fanout.pk, token=token, status=FanoutStatus.DONE, error=error if more else "")


def _queue_of(fanout: Fanout) -> str:
    return Workflow.objects.only("queue").get(key=fanout.workflow_key).queue

"""A schedule's occurrences become runs (docs/guide/schedules.md), one step per task under the
schedule's lease (schedules/work.py).

A step claims the schedule (committed on its own), then, in one transaction, locks it while the
lease is still its own and walks its firing state (schedules/models.py) from where it was:

- an occurrence whose zones are not read yet has them read once its earliest instant has come
  (its zone, or the zones of its audience, each with the instant the local time is on its wall:
  schedules/rules.py); zones whose instant is before `fires_from` are passed over;
- an occurrence whose zones are read is admitted as a whole (schedules/admission.py: a topic's
  audience capped and charged as a fan-out's request is): refused, it is recorded and the next
  one is due; waiting for the key's rate, the step ends with the schedule due again then;
- a zone whose instant is still to come ends the step: the schedule is due again then;
- a zone missed by more than `catch_up` (the service was down) is skipped, recorded;
- otherwise the step fires one chunk of that zone's recipients (NOTIFLOW_FANOUT_CHUNK_SIZE)
  through the audience's insert primitive (triggers/audience_runs.py), the cursor moves past
  it, a zone done is recorded with its runs, and the schedule is released due at once, its next
  task published after commit.

Exactly once. Each run's idempotency key is `schedule:<id>:<recipient>:<instant in UTC>`
(`occurrence_run_key`): a chunk done again (its worker died after the runs' commit could not be
told, or a step was taken again after its lease expired: the chunk was rolled back with it)
finds its runs there and creates none; the runs, the cursor and the record are one transaction,
fenced by the lease's token.
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from typing import Any
from zoneinfo import ZoneInfo

from django.conf import settings
from django.db import transaction

from common.db import fetchall_prepared
from common.leased_work import nudge_schedule
from common.leases import lease_token
from common.statements import statement_load
from schedules.admission import occurrence_admission
from schedules.models import (
    RECIPIENT_ZONE,
    OccurrenceStatus,
    Schedule,
    ScheduleOccurrence,
)
from schedules.rules import (
    Rule,
    RuleProblem,
    earliest_instant,
    instant_of,
    local_of,
    local_text,
    occurrences,
    rule_parse,
    zone_checked,
)
from schedules.work import (
    FiringState,
    ScheduleNudge,
    schedule_claim,
    schedule_give_back,
    schedule_release,
    schedules_enqueue_on_commit,
)
from triggers.audience_runs import AudienceRuns, RunsPaused, WorkflowGone, audience_runs_create
from triggers.services import MAX_IDEMPOTENCY_KEY_LENGTH, TriggerRequest, trigger_request_checked
from workflows.models import Workflow

logger = logging.getLogger(__name__)

# The most zones one step passes over, skips or reads before it gives the worker back (the
# rest is the next task's): a schedule back from a long outage records its skips in slices.
MAX_MOVES_PER_STEP = 200
_ZONES_LIST_SQL = statement_load(__file__, "audience_zones_list")
_ZONES_TOPIC_SQL = statement_load(__file__, "audience_zones_topic")
_CHUNK_LIST_SQL = statement_load(__file__, "audience_chunk_list")
_CHUNK_TOPIC_SQL = statement_load(__file__, "audience_chunk_topic")
# A fixed zone's chunks: everyone, no profile read.
_CHUNK_LIST_ANY_SQL = statement_load(__file__, "audience_chunk_list_any")
_CHUNK_TOPIC_ANY_SQL = statement_load(__file__, "audience_chunk_topic_any")
_RUN_KEY_PREFIX = "schedule:"


def occurrence_run_key(schedule_id: str, recipient: str, at: datetime) -> str:
    """The idempotency key of `recipient`'s run at the occurrence instant `at`:
    `schedule:<id>:<recipient>:<YYYY-MM-DDTHH:MM:SSZ>` when it fits the keys' limit, else
    `schedule:sha256:<hash of that>`."""
    readable = f"{_RUN_KEY_PREFIX}{schedule_id}:{recipient}:{utc_text(at)}"
    if len(readable) <= MAX_IDEMPOTENCY_KEY_LENGTH:
        return readable
    return f"{_RUN_KEY_PREFIX}sha256:{hashlib.sha256(readable.encode()).hexdigest()}"


def utc_text(at: datetime) -> str:
    return at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def schedule_fire(*, schedule_id: str, worker_id: str) -> int | None:
    """Take the schedule's next step under a lease, if it is active, due and free (else None:
    another task holds it, or it is not to be worked on): the runs it created. A step that
    raises (RunsPaused: no live worker serves the queue) is rolled back and given back, due
    again after NOTIFLOW_FANOUT_RESUME_AFTER_SECONDS with its reason in `last_error`; then
    raised."""
    token = lease_token(worker_id)
    now = schedule_claim(schedule_id, token=token)
    if now is None:
        return None
    try:
        with transaction.atomic():
            outcome = schedule_step(schedule_id, token=token, now=now)
    except Exception as exc:
        reason = f"paused: {exc}" if isinstance(exc, RunsPaused) else f"step failed: {exc!r}"
        schedule_give_back(
            schedule_id,
            token=token,
            error=reason[:2000],
            wait=settings.NOTIFLOW_FANOUT_RESUME_AFTER_SECONDS,
        )
        raise
    return None if outcome is None else outcome.created


@lru_cache(maxsize=256)
def schedule_rule(repeat: str, starts_at: str) -> Rule:
    """The schedule's rule from its stored fields (checked when it was stored)."""
    return rule_parse(repeat, start=local_of(starts_at), min_interval=0)


def fixed_zone(schedule: Schedule) -> ZoneInfo | None:
    """The schedule's zone, or None when it is each recipient's own."""
    return None if schedule.timezone == RECIPIENT_ZONE else zone_checked(schedule.timezone)


class _Step:
    """One step's walk of a locked schedule's firing state."""

    def __init__(self, schedule: Schedule, now: datetime) -> None:
        self.schedule = schedule
        self.now = now
        self.rule = schedule_rule(schedule.repeat, schedule.starts_at)
        self.zone = fixed_zone(schedule)
        self.ends = local_of(schedule.ends_at) if schedule.ends_at else None
        self.state = FiringState(
            schedule.next_local,
            schedule.zones,
            schedule.cursor,
            schedule.zone_runs,
            schedule.charged,
        )
        self.records: list[ScheduleOccurrence] = []
        self.created = 0
        self.errors: list[str] = []

    # --- the state's moves ---

    def advance(self, local: datetime) -> None:
        """The occurrence after `local`, its zones unread ('' when the rule has no more)."""
        following = next(
            occurrences(self.rule, after=local + timedelta(seconds=1), ends=self.ends), None
        )
        self.state = FiringState(local_text(following) if following else "", None, 0, 0)

    def zone_done(self, local: datetime, status: str, reason: str = "") -> None:
        zones = list(self.state.zones or [])
        name, at = zones.pop(0)
        self.records.append(
            ScheduleOccurrence(
                schedule=self.schedule,
                local=local_text(local),
                zone=name,
                occurs_at=datetime.fromisoformat(at),
                status=status,
                runs=self.state.zone_runs,
                charged=self.state.charged,
                reason=reason,
            )
        )
        if zones:
            self.state = FiringState(self.state.next_local, zones, 0, 0)
        else:
            self.advance(local)

    def occurrence_refused(self, local: datetime, zones: list[list[str]], reason: str) -> None:
        """The occurrence `local` refused as a whole (schedules/admission.py): one record, in
        the schedule's zone (or `recipient`) at its first zone's instant; no run."""
        self.records.append(
            ScheduleOccurrence(
                schedule=self.schedule,
                local=local_text(local),
                zone=self.schedule.timezone,
                occurs_at=datetime.fromisoformat(zones[0][1]),
                status=OccurrenceStatus.REFUSED,
                reason=reason,
            )
        )
        self.errors.append(f"occurrence {local_text(local)} refused: {reason}")
        self.advance(local)

    def zones_read(self, local: datetime) -> list[list[str]]:
        """The zones of the occurrence `local` still to fire, earliest first, with their
        instants; those before `fires_from` passed over."""
        names = [self.schedule.timezone] if self.zone is not None else self._audience_zones()
        zones: list[tuple[datetime, str]] = []
        for name in names:
            try:
                at = instant_of(local, zone_checked(name))
            except RuleProblem:
                logger.warning("schedule %s: recipient zone %r unknown", self.schedule.pk, name)
                continue
            if at >= self.schedule.fires_from:
                zones.append((at, name))
        return [[name, at.isoformat()] for at, name in sorted(zones)]

    def _audience_zones(self) -> list[str]:
        params: dict[str, Any] = {"default_zone": settings.NOTIFLOW_DEFAULT_TIMEZONE}
        if self.schedule.topic_key:
            rows = fetchall_prepared(_ZONES_TOPIC_SQL, {**params, "topic": self.schedule.topic_key})
        else:
            rows = fetchall_prepared(
                _ZONES_LIST_SQL, {**params, "recipients": self.schedule.recipients or []}
            )
        return [row[0] for row in rows]

    # --- the walk ---

    def walk(self) -> float | None:
        """Walk the state until a chunk is fired (0: due again at once) or the next zone's time
        is to come (the seconds to it); None when the rule has no more occurrences."""
        catch_up = timedelta(seconds=self.schedule.catch_up_seconds)
        for _ in range(MAX_MOVES_PER_STEP):
            if not self.state.next_local:
                return None
            local = local_of(self.state.next_local)
            if self.state.zones is None:
                wake = instant_of(local, self.zone) if self.zone else earliest_instant(local)
                if wake > self.now:
                    return (wake - self.now).total_seconds()
                zones = self.zones_read(local)
                if not zones:
                    self.advance(local)
                    continue
                charged = 0
                least_late = self.now - datetime.fromisoformat(zones[-1][1])
                if least_late <= catch_up:
                    # Some zone is still on time: the occurrence is admitted (a fan-out's cap
                    # and charge); one missed everywhere is skipped below, never charged.
                    admission = occurrence_admission(self.schedule, late=least_late)
                    if admission.refused:
                        self.occurrence_refused(local, zones, admission.refused)
                        continue
                    if admission.wait > 0:
                        self.errors.append(
                            f"waiting {admission.wait:.0f}s for the trigger rate of the key that "
                            f"stored it to let the occurrence {local_text(local)} pass"
                        )
                        return admission.wait
                    charged = admission.charged
                self.state = FiringState(self.state.next_local, zones, 0, 0, charged)
            name, at_text = (self.state.zones or [])[0]
            at = datetime.fromisoformat(at_text)
            if at > self.now:
                return (at - self.now).total_seconds()
            # A zone under way (its cursor moved) goes on however late: only its start is late.
            if self.state.cursor == 0 and at < self.now - catch_up:
                late = self.now - at
                self.zone_done(
                    local,
                    OccurrenceStatus.SKIPPED,
                    f"missed by {late}, more than catch_up ({catch_up})",
                )
                continue
            self.fire_chunk(local, name, at)
            return 0
        return 0

    def fire_chunk(self, local: datetime, zone: str, at: datetime) -> None:
        """Fire the next chunk of the zone's recipients at `at`; the zone done when it was the
        last."""
        size = settings.NOTIFLOW_FANOUT_CHUNK_SIZE
        chunk = self._chunk(None if self.zone else zone, size)
        made = 0
        if chunk:
            recipients = [key for _, key in chunk]
            keys = [occurrence_run_key(self.schedule.pk, key, at) for key in recipients]
            try:
                made, refused = audience_runs_create(self._runs(), keys, recipients)
            except WorkflowGone as gone:
                self.zone_done(local, OccurrenceStatus.SKIPPED, str(gone))
                self.errors.append(str(gone))
                return
            if refused:
                self.errors.append(f"{len(refused)} run(s) left out: {refused[0]}")
        self.created += made
        self.state = FiringState(
            self.state.next_local,
            self.state.zones,
            int(chunk[-1][0]) if chunk else self.state.cursor,
            self.state.zone_runs + made,
            self.state.charged,
        )
        if len(chunk) < size:
            self.zone_done(local, OccurrenceStatus.FIRED)

    def _chunk(self, zone: str | None, size: int) -> list[tuple[Any, str]]:
        """The next `size` of the audience after the cursor: in `zone`, or (None) anyone."""
        params: dict[str, Any] = {"cursor": self.state.cursor, "size": size}
        if zone is not None:
            params.update(zone=zone, default_zone=settings.NOTIFLOW_DEFAULT_TIMEZONE)
        if self.schedule.topic_key:
            sql = _CHUNK_TOPIC_ANY_SQL if zone is None else _CHUNK_TOPIC_SQL
            params["topic"] = self.schedule.topic_key
        else:
            sql = _CHUNK_LIST_ANY_SQL if zone is None else _CHUNK_LIST_SQL
            params["recipients"] = self.schedule.recipients or []
        return [(row[0], row[1]) for row in fetchall_prepared(sql, params)]

    def _runs(self) -> AudienceRuns:
        schedule = self.schedule
        payload_json, _ = trigger_request_checked(
            TriggerRequest(
                workflow_key=schedule.workflow_key,
                idempotency_key=_RUN_KEY_PREFIX + schedule.pk,
                payload=schedule.payload,
            )
        )
        # The tenant was checked when the schedule was stored (one deleted since leaves its
        # runs an empty tenant, as a fan-out's).
        return AudienceRuns(
            workflow_key=schedule.workflow_key,
            payload_json=payload_json,
            tenant=schedule.tenant,
            actor=f"schedule:{schedule.pk}",
        )


@dataclass(frozen=True)
class StepOutcome:
    """What a step did: the runs it created, and the seconds until the schedule is due again
    (None: the rule has no more occurrences)."""

    created: int
    wait: float | None


def schedule_step(schedule_id: str, *, token: str, now: datetime) -> StepOutcome | None:
    """The step of a schedule claimed under `token` at the database's `now` (schedule_fire's
    transaction; the tests call it with a `now` of their choosing): None when the schedule is
    no longer this lease's, active, or there."""
    # The lock waits for a PUT under way; a schedule paused or deleted since the claim is left.
    schedule = (
        Schedule.objects.select_for_update()
        .filter(pk=schedule_id, leased_by=token, active=True)
        .first()
    )
    if schedule is None:
        return None
    step = _Step(schedule, now)
    wait = step.walk()
    ScheduleOccurrence.objects.bulk_create(step.records)
    nudged, countdown = (False, None) if wait is None else nudge_schedule(wait)
    schedule_release(
        schedule.pk,
        token=token,
        state=step.state,
        created=step.created,
        error="; ".join(step.errors)[:2000],
        wait=wait or 0,
        nudged=nudged,
    )
    if nudged:
        queue = (
            Workflow.objects.filter(key=schedule.workflow_key)
            .values_list("queue", flat=True)
            .first()
        )
        queue = queue or settings.CELERY_TASK_DEFAULT_QUEUE
        schedules_enqueue_on_commit([ScheduleNudge(schedule.pk, queue, countdown)])
    return StepOutcome(step.created, wait)

"""Each occurrence of a topic schedule is capped and charged as a fan-out's request is
(docs/guide/schedules.md, "Topics: capped and charged like fan-outs"; docs/security/findings.md,
"Fan-outs"), by the same two functions: the audience's cap (triggers/audience_limits.py,
NOTIFLOW_FANOUT_MAX_AUDIENCE) and the charge of its runs to the `trigger` rate of the API key that
stored the schedule (common.throttling.trigger_rate_take).

An occurrence is admitted once, when its zones are read (schedules/firing.py): its whole
audience, every zone of it, is counted and charged then, as a fan-out's is at its request.
Over the cap it is refused, recorded, and no run is made. When the key's bucket does not let it
pass, nothing is charged and the occurrence waits for the bucket, as a client would after a 429,
unless that would make it later than `catch_up`: then it is refused, recorded. A list of
recipients is capped by NOTIFLOW_SCHEDULE_MAX_RECIPIENTS when it is stored and not charged.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from common.throttling import trigger_rate_take
from schedules.models import Schedule
from triggers.audience_limits import topic_audience_checked
from triggers.models import ApiKey
from triggers.services import TriggerRejected


@dataclass(frozen=True)
class Admission:
    """What an occurrence may do: fire, its runs `charged` to the key's rate (0: no charge);
    wait `wait` seconds for the key's rate and be admitted again then; or nothing, `refused`
    saying why."""

    charged: int = 0
    wait: float = 0.0
    refused: str = ""


def occurrence_admission(schedule: Schedule, *, late: timedelta) -> Admission:
    """Admit the occurrence of `schedule` under way, `late` past its instant (the least late of
    its zones): count its topic's audience against the cap and charge it to the key that stored
    the schedule. A schedule of a recipients list, or one no key stored, is charged nothing.
    The charge is not part of the step's transaction: a step rolled back after it (its worker
    died) charges the occurrence again when it is taken again, never less than once."""
    if not schedule.topic_key:
        return Admission()
    try:
        audience = topic_audience_checked(schedule.topic_key)
    except TriggerRejected as exc:
        return Admission(refused=exc.message)
    if schedule.api_key_id is None:
        return Admission()
    # No ordering (the model's is by name): the worker role reads `id` and `key_hash` only.
    keys = ApiKey.objects.filter(pk=schedule.api_key_id).order_by()
    key_hash = keys.values_list("key_hash", flat=True).first()
    if key_hash is None:
        return Admission()
    wait = trigger_rate_take(key_hash=key_hash, runs=audience)
    if wait is None:  # no rate limit
        return Admission()
    if wait <= 0:
        return Admission(charged=audience)
    catch_up = timedelta(seconds=schedule.catch_up_seconds)
    if late + timedelta(seconds=wait) > catch_up:
        return Admission(
            refused=f"the trigger rate of the key that stored it lets {audience} runs pass only "
            f"in {wait:.0f}s, later than catch_up ({catch_up}) allows"
        )
    return Admission(wait=wait)

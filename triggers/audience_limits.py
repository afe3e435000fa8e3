"""What a topic's audience may be (docs/security/findings.md, "Fan-outs"): the one cap that a
fan-out's request (triggers/fanout.py) and each occurrence of a topic schedule
(schedules/admission.py) go through, before their runs are charged to the key's `trigger` rate
(common.throttling.trigger_rate_take)."""

from __future__ import annotations

from collections.abc import Sequence

from django.conf import settings

from recipients.models import TopicSubscription
from triggers.services import TriggerRejected


def topic_audience_checked(topic_key: str, *, exclude: Sequence[str] = ()) -> int:
    """The runs a topic's audience makes now: its subscribers but the excluded, one COUNT on
    the (topic, id) index. TriggerRejected (400, `topic`) saying how big when that is more than
    NOTIFLOW_FANOUT_MAX_AUDIENCE."""
    rows = TopicSubscription.objects.filter(topic_id=topic_key)
    if exclude:
        rows = rows.exclude(recipient_id__in=list(exclude))
    size = rows.count()
    limit = settings.NOTIFLOW_FANOUT_MAX_AUDIENCE
    if size > limit:
        raise TriggerRejected(
            "topic",
            f"topic {topic_key!r} has {size} subscribers to reach, more than the {limit} one "
            "fan-out or schedule occurrence may (NOTIFLOW_FANOUT_MAX_AUDIENCE)",
        )
    return size

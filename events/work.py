"""Webhook deliveries as leased work (common/leased_work.py; docs/design/leased-work.md, "Leased work"): a
delivery is `pending` throughout, waiting when it holds no lease and leased when it does, and is
worked on only while its endpoint is enabled (a disabled endpoint keeps its deliveries). Its
nudges all go to NOTIFLOW_WEBHOOK_QUEUE at the default priority (events.dispatch routes them), in
due order. Its sweeps are written whole in events/statements/deliveries_sweep_*.sql; the claim
and the finish are events migration 0004's functions (events/sql.py).
"""

from __future__ import annotations

from django.conf import settings

from common.leased_work import LeasedWork, Swept
from common.statements import statement_load
from events.dispatch import DeliveryNudge, deliveries_nudge_on_commit
from events.models import DeliveryStatus
from events.sql import DELIVERY_TABLE


def _queues() -> list[str]:
    return [settings.NOTIFLOW_WEBHOOK_QUEUE]


def _nudge(row: Swept) -> DeliveryNudge:
    delivery_id, countdown, _, _ = row
    return DeliveryNudge(int(delivery_id), countdown)


DELIVERIES: LeasedWork[DeliveryNudge] = LeasedWork(
    name="webhook delivery",
    table=DELIVERY_TABLE,
    sweep_due_sql=statement_load(__file__, "deliveries_sweep_due"),
    sweep_expired_sql=statement_load(__file__, "deliveries_sweep_expired"),
    params={"st_pending": DeliveryStatus.PENDING.value},
    queues=_queues,
    nudge=_nudge,
    enqueue_on_commit=deliveries_nudge_on_commit,
)

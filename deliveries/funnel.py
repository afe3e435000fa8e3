"""A workflow's engagement funnel (docs/funnel.md): per sending node and channel, how many messages
were sent, skipped and failed, and of those sent how many were delivered, opened, clicked,
bounced, complained about and unsubscribed from, with the rates between them.

Read from the rollup `funnel_count` (deliveries.models.FunnelCount): one index range of
funnel_count_once (workflow, hour, ...) per answer, a few hundred rows for a day, whatever the
number of runs. The providers' reports and the inbox's marks are counted into it by row triggers
as they are stored (deliveries migrations 0006 and 0007); the steps' decisions by the funnel's
sweep (`funnel_sweep`, a beat task every sweep interval), off the step's transaction, behind a
watermark no open transaction can cross (migration 0008). The read adds the step logs past the
watermark, in the same statement (one snapshot), so it is exact whenever it is read: the tail is
the steps of the last sweep interval, or of as long as the oldest transaction still open.

Counts are per hour the send began (UTC), so a window is whole hours: `since` is taken down to
its hour and `until` up to its own, and the answer says which window it counted. Here, in
`deliveries`, beside the reports it counts.

Tenants (issue 48 §3) add one filter: the rollup's `tenant` column, which the writers fill from
the run's tenant ('' for a run without one; deliveries migration 0007); `workflow_funnel(tenant=...)`
filters on it. An in-app message's seen and read marks count as `delivered` and `opened`
(the inbox's row trigger, the same migration).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from django.db import connection

from workflows.channels import channel_names
from workflows.decisions import FAILED, SENT, SKIPPED
from workflows.models import Workflow
from workflows.nodes import NODE_TYPES
from workflows.selectors import workflow_version_compiled

# What the step decided (workflows.decisions), then the provider's first report of each kind
# about the message (deliveries.services, anymail's event names): the funnel's counts, in the
# order the API and the chart show them.
DECIDED = (SENT, SKIPPED, FAILED)
REPORTED = ("delivered", "opened", "clicked", "bounced", "complained", "unsubscribed")
OUTCOMES = (SENT, "delivered", "opened", "clicked", "bounced", "complained", "unsubscribed",
            SKIPPED, FAILED)  # fmt: skip
REACHED = "reached"  # sent + skipped + failed: the runs that came to the node and were decided


@dataclass(frozen=True)
class Rate:
    name: str
    numerator: str
    denominator: str  # an outcome, or REACHED

    @property
    def text(self) -> str:
        below = "sent + skipped + failed" if self.denominator == REACHED else self.denominator
        return f"{self.numerator} / {below}"


RATES = (
    Rate("delivery_rate", "delivered", SENT),
    Rate("open_rate", "opened", "delivered"),
    Rate("click_rate", "clicked", "delivered"),
    Rate("click_to_open_rate", "clicked", "opened"),
    Rate("bounce_rate", "bounced", SENT),
    Rate("complaint_rate", "complained", "delivered"),
    Rate("unsubscribe_rate", "unsubscribed", "delivered"),
    Rate("skip_rate", SKIPPED, REACHED),
    Rate("failure_rate", FAILED, REACHED),
)


@dataclass(frozen=True)
class FunnelNode:
    node: str
    channel: str
    counts: dict[str, int]
    rates: dict[str, float | None]  # None when the denominator is 0


@dataclass(frozen=True)
class Funnel:
    workflow_key: str
    since: datetime  # whole hours, UTC: the window counted
    until: datetime
    nodes: list[FunnelNode]


def funnel_window(since: datetime, until: datetime) -> tuple[datetime, datetime]:
    """The whole hours (UTC) that cover [since, until): the window the rollup can count."""
    start = since.astimezone(UTC).replace(minute=0, second=0, microsecond=0)
    end = until.astimezone(UTC)
    top = end.replace(minute=0, second=0, microsecond=0)
    return start, (top if top == end else top + timedelta(hours=1))


def funnel_rates(counts: dict[str, int]) -> dict[str, float | None]:
    """Each rate of RATES from `counts` (every outcome), rounded to 4 places; None over 0."""
    reached = sum(counts[o] for o in DECIDED)
    rates: dict[str, float | None] = {}
    for rate in RATES:
        below = reached if rate.denominator == REACHED else counts[rate.denominator]
        rates[rate.name] = round(counts[rate.numerator] / below, 4) if below else None
    return rates


def _current_sending_nodes(workflow: Workflow) -> list[tuple[str, str]]:
    """(node id, channel) of each node of the current version that leaves a message, in the
    definition's order."""
    if workflow.current_version_id is None:
        return []
    found = []
    for node in workflow_version_compiled(workflow.current_version_id).nodes.values():
        kind = NODE_TYPES.get(str(node.get("type")))
        if kind is not None and kind.preference_channel:
            found.append((str(node["id"]), kind.preference_channel))
    return found


# The rollup's rows of one workflow in [start, end), and what the step logs past the watermark
# add to them (notiflow_funnel_steps_v1, deliveries migration 0008): one statement, so one
# snapshot, in which every step log is either swept (below the mark) or in the tail, never both.
COUNTED_SQL = """
SELECT c.hour, c.node_id, c.channel, c.outcome, sum(c.count)::bigint
FROM (
    SELECT f.hour, f.node_id::text, f.channel::text, f.outcome::text, f.count
    FROM funnel_count f
    WHERE f.workflow_id = %(workflow)s AND f.hour >= %(start)s AND f.hour < %(end)s
      AND (%(tenant)s::text IS NULL OR f.tenant = %(tenant)s::text)
    UNION ALL
    SELECT s.hour, s.node_id, s.channel, s.outcome, s.count
    FROM funnel_sweep w, notiflow_funnel_steps_v1(w.swept_below, NULL, %(workflow)s) s
    WHERE s.hour >= %(start)s AND s.hour < %(end)s
      AND (%(tenant)s::text IS NULL OR s.tenant = %(tenant)s::text)
) c
GROUP BY 1, 2, 3, 4
"""

SWEEP_SQL = "SELECT notiflow_funnel_sweep_v1()"


def funnel_counted(
    *, workflow: Workflow, start: datetime, end: datetime, tenant: str | None = None
) -> list[tuple[datetime, str, str, str, int]]:
    """(hour, node, channel, outcome, count) of `workflow`'s messages sent in [start, end), of
    every channel and outcome counted, exact: the rollup and the steps not swept yet."""
    with connection.cursor() as cursor:
        cursor.execute(
            COUNTED_SQL, {"workflow": workflow.pk, "start": start, "end": end, "tenant": tenant}
        )
        return [(hour, node, channel, outcome, int(count))
                for hour, node, channel, outcome, count in cursor.fetchall()]  # fmt: skip


def funnel_sweep() -> int:
    """Roll the step logs up into the funnel's counts, up to the oldest transaction still open,
    and move the watermark there, in one transaction (deliveries migration 0008). Returns how
    many step logs it counted: 0 when another sweep holds the watermark."""
    with connection.cursor() as cursor:
        cursor.execute(SWEEP_SQL)
        (counted,) = cursor.fetchone()
    return int(counted)


def workflow_funnel(
    *, workflow: Workflow, since: datetime, until: datetime, tenant: str | None = None
) -> Funnel:
    """The funnel of `workflow`'s messages sent in the whole hours covering [since, until): the
    current version's sending nodes first, in its order (with zeros when nothing was counted),
    then any other node that counted in the window (an earlier version's), by id. One query."""
    start, end = funnel_window(since, until)
    channels = set(channel_names())
    counted: dict[tuple[str, str], dict[str, int]] = {}
    for _hour, node, channel, outcome, count in funnel_counted(
        workflow=workflow, start=start, end=end, tenant=tenant
    ):
        if channel in channels and outcome in OUTCOMES:
            counts = counted.setdefault((node, channel), dict.fromkeys(OUTCOMES, 0))
            counts[outcome] += count
    order = _current_sending_nodes(workflow)
    order += sorted(key for key in counted if key not in order)
    nodes = []
    for node, channel in order:
        counts = counted.get((node, channel), dict.fromkeys(OUTCOMES, 0))
        nodes.append(FunnelNode(node, channel, counts, funnel_rates(counts)))
    return Funnel(workflow.key, start, end, nodes)


def funnel_data(funnel: Funnel) -> dict[str, Any]:
    """The funnel as the API answers it."""
    return {
        "workflow": funnel.workflow_key,
        "since": funnel.since,
        "until": funnel.until,
        "nodes": [
            {"node": n.node, "channel": n.channel, "counts": n.counts, "rates": n.rates}
            for n in funnel.nodes
        ],
    }

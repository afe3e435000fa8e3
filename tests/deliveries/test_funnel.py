"""The engagement funnel (issue 49 §3, docs/funnel.md): a run history made by the engine itself
(sent, skipped by an opt-out, failed on a hard bounce) and providers' reports about its messages,
counted by the rollup's triggers (the reports: deliveries migration 0006) and sweep (the steps:
0008) and read by
`GET /api/workflows/<key>/funnel/`: the counts, the rates between them, the window, and input the
endpoint refuses."""

from __future__ import annotations

import re
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from deliveries.funnel import OUTCOMES, RATES, funnel_counted, funnel_rates, funnel_window
from deliveries.models import FunnelCount
from deliveries.services import OPERATOR, Report, delivery_record
from deliveries.suppression import suppression_add
from tests.conftest import unique
from tests.deliveries.support import sent
from tests.factories import chain, email_node, sms_node
from tests.ops.metrics_helpers import value
from tests.ops.test_metrics import recording, scrape  # noqa: F401 (fixture)
from tests.triggers.test_explain import api, locmem, sibling, step  # noqa: F401 (fixtures)
from tests.workers.helpers import due_trigger
from triggers.models import TriggerInstance
from workers.models import SendLedger
from workflows.nodes import NODE_TYPES

pytestmark = [pytest.mark.django_db]


def payload(name: str) -> dict[str, str]:
    return {
        "email": f"{name}-{uuid.uuid4().hex[:8]}@example.com",
        "phone": "+15550100",
        "name": name,
    }


def report(trigger: TriggerInstance, event: str, *, node: str = "mail") -> None:
    """A provider's report about the run's message at `node`, as `manage.py report_delivery`
    makes one (the operator vouches for it)."""
    send = SendLedger.objects.get(trigger=trigger, node_id=node)
    row = delivery_record(
        Report(
            provider=send.provider or OPERATOR,
            channel=send.channel,
            event=event,
            recipient=str(send.result["to"]),
            provider_message_id=send.provider_message_id,
            event_id=unique("evt"),
            via=OPERATOR,
        )
    )
    assert row is not None


@pytest.fixture
def history() -> dict[str, Any]:
    """Six runs of one workflow (an email, then an SMS): four send both; one's email is skipped
    (the address unsubscribed: an opt-out, the run goes on to the SMS); one fails at the email
    (a hard bounce on the list: a transactional send fails). Then the providers report on the
    four emails: three delivered, one bounced; two opened (one of them twice), one clicked,
    one complained, one unsubscribed; one SMS delivered."""
    first = due_trigger(chain(email_node("mail"), sms_node("text")), payload("ann"))
    runs = [first] + [sibling(first, payload(f"p{i}")) for i in range(5)]
    opted_out, bounced_before = runs[4], runs[5]
    suppression_add(channel="email", recipient=opted_out.payload["email"], reason="unsubscribed")
    suppression_add(channel="email", recipient=bounced_before.payload["email"], reason="bounced")
    for run in runs:
        while run.status == "enqueued":
            run = step(run)
    runs = [TriggerInstance.objects.get(pk=run.pk) for run in runs]
    a, b, c, d = runs[:4]
    for run, events in (
        (a, ["delivered", "opened", "opened", "clicked"]),
        (b, ["delivered", "opened", "complained"]),
        (c, ["delivered", "unsubscribed"]),
        (d, ["bounced"]),
    ):
        for event in events:
            report(run, event)
    report(a, "delivered", node="text")
    return {"workflow": first.workflow, "runs": runs}


def funnel(api: APIClient, key: str, **params: str) -> dict[str, Any]:  # noqa: F811
    response = api.get(f"/api/workflows/{key}/funnel/", params)
    assert response.status_code == 200, response.content
    return response.json()


def test_counts_come_from_the_steps_decisions_and_each_messages_first_report(api, history):  # noqa: F811
    runs = history["runs"]
    assert [run.status for run in runs] == ["completed"] * 5 + ["failed"]

    body = funnel(api, history["workflow"].key)

    mail, text = body["nodes"]
    assert (mail["node"], mail["channel"], text["node"], text["channel"]) == (
        "mail", "email", "text", "sms",
    )  # fmt: skip
    assert mail["counts"] == {
        "sent": 4,
        "delivered": 3,
        "opened": 2,  # the second open of the same message is the same opened message
        "clicked": 1,
        "bounced": 1,
        "complained": 1,
        "unsubscribed": 1,
        "skipped": 1,
        "failed": 1,
    }
    assert text["counts"] == {**dict.fromkeys(OUTCOMES, 0), "sent": 5, "delivered": 1}


def test_rates_are_between_the_counts_and_null_over_nothing(api, history):  # noqa: F811
    mail, text = funnel(api, history["workflow"].key)["nodes"]

    assert mail["rates"] == {
        "delivery_rate": 0.75,
        "open_rate": 0.6667,
        "click_rate": 0.3333,
        "click_to_open_rate": 0.5,
        "bounce_rate": 0.25,
        "complaint_rate": 0.3333,
        "unsubscribe_rate": 0.3333,
        "skip_rate": 0.1667,
        "failure_rate": 0.1667,
    }
    assert text["rates"]["delivery_rate"] == 0.2
    assert text["rates"]["open_rate"] == 0.0
    assert text["rates"]["click_to_open_rate"] is None  # nothing opened
    assert set(mail["rates"]) == {rate.name for rate in RATES}
    assert funnel_rates(dict.fromkeys(OUTCOMES, 0)) == dict.fromkeys(mail["rates"])


def test_the_window_is_whole_hours_and_counts_only_the_sends_in_it(api, history):  # noqa: F811
    workflow = history["workflow"]
    key = workflow.key
    # The hour the sends were counted in (read, not assumed: the history may be made in the
    # last second of an hour), asked for from a quarter past it to a quarter to the next.
    # Read exact (the rollup and the steps its sweep has not counted yet, as the API reads).
    now = timezone.now()
    sent = [(hour.astimezone(UTC), count) for hour, node, _, outcome, count in funnel_counted(
        workflow=workflow, start=now - timedelta(days=1), end=now + timedelta(hours=1)
    ) if (node, outcome) == ("mail", "sent")]  # fmt: skip
    hour = min(hour for hour, _ in sent)
    body = funnel(
        api,
        key,
        since=(hour + timedelta(minutes=15)).isoformat(),
        until=(hour + timedelta(minutes=45)).isoformat(),
    )
    assert (body["since"], body["until"]) == (
        hour.isoformat().replace("+00:00", "Z"),
        (hour + timedelta(hours=1)).isoformat().replace("+00:00", "Z"),
    )
    in_hour = sum(count for at, count in sent if at == hour)
    assert body["nodes"][0]["counts"]["sent"] == in_hour
    assert in_hour == 4 or len({at for at, _ in sent}) == 2  # all four, unless split by an hour

    earlier = funnel(api, key, since=(now - timedelta(days=3)).isoformat(),
                     until=(now - timedelta(days=2)).isoformat())  # fmt: skip
    assert [n["counts"] for n in earlier["nodes"]] == [dict.fromkeys(OUTCOMES, 0)] * 2

    start, end = funnel_window(
        datetime(2026, 3, 1, 9, 30, tzinfo=UTC), datetime(2026, 3, 1, 11, 0, tzinfo=UTC)
    )
    assert (start.hour, end.hour) == (9, 11)


def test_a_node_of_an_earlier_version_that_counted_is_listed_after_the_current_ones(api, history):  # noqa: F811
    workflow = history["workflow"]
    FunnelCount.objects.create(
        workflow=workflow, hour=timezone.now(), node_id="old", channel="sms", outcome="sent",
        slot=0, count=7,
    )  # fmt: skip
    nodes = funnel(api, workflow.key)["nodes"]
    assert [(n["node"], n["counts"]["sent"]) for n in nodes] == [
        ("mail", 4),
        ("text", 5),
        ("old", 7),
    ]


@pytest.mark.parametrize(
    "query, name",
    [
        ({"since": "yesterday"}, "since"),
        ({"until": "2026-03-01T10:00:00"}, "until"),  # no offset
        ({"since": "2026-03-02T00:00:00Z", "until": "2026-03-01T00:00:00Z"}, "since"),
        ({"since": "2024-01-01T00:00:00Z", "until": "2026-01-01T00:00:00Z"}, "since"),
        ({"tenant": "no-such-tenant"}, "tenant"),
        ({"snice": "2026-03-01T00:00:00Z"}, "snice"),
    ],
)
def test_bad_input_is_a_400_naming_the_parameter(api, query, name):  # noqa: F811
    workflow = due_trigger().workflow
    response = api.get(f"/api/workflows/{workflow.key}/funnel/", query)
    assert response.status_code == 400, response.content
    assert name in response.json()["errors"], response.json()


def test_a_workflow_that_does_not_exist_is_a_404(api):  # noqa: F811
    assert api.get("/api/workflows/nope-nothing/funnel/").status_code == 404


def test_every_node_type_that_leaves_a_message_is_named_after_its_channel():
    """The step trigger counts a step under its node type as the channel (migration 0006), as
    the claim writes the node type into the send ledger's channel."""
    for name, kind in NODE_TYPES.items():
        if kind.preference_channel:
            assert kind.preference_channel == name


def test_each_stored_report_counts_once_by_workflow_channel_and_event(
    client,
    recording,  # noqa: F811 (the fixture)
    django_capture_on_commit_callbacks,
):
    trigger = sent("msg-funnel-1", to="ann@example.com")
    key = trigger.workflow.key

    def ses(event: str, event_id: str) -> None:
        with django_capture_on_commit_callbacks(execute=True):
            delivery_record(
                Report(
                    provider="ses", channel="email", event=event, recipient="ann@example.com",
                    provider_message_id="msg-funnel-1", event_id=event_id,
                    reporters=frozenset({"ses"}),
                )
            )  # fmt: skip

    ses("delivered", "e1")
    ses("opened", "e2")
    ses("opened", "e2")  # the provider's redelivery of the same report
    ses("opened", "e3")  # a second open: another report
    parsed = scrape(client)
    labels = {"workflow": key, "channel": "email"}
    assert value(parsed, "notiflow_delivery_events_total", **labels, event="delivered") == 1
    assert value(parsed, "notiflow_delivery_events_total", **labels, event="opened") == 2


def test_the_workflow_page_draws_each_sending_nodes_funnel_beside_the_run_charts(
    history, admin_client
):
    workflow = history["workflow"]
    html = admin_client.get(f"/admin/workflows/workflow/{workflow.pk}/change/").content.decode()

    assert html.index('id="run-charts"') < html.index('id="funnel"')
    panel = html[html.index('id="funnel"') :]
    assert panel.count('<svg class="nf-chart"') == 2
    assert "mail (email)" in panel and "text (sms)" in panel
    mail = panel[: panel.index("text (sms)")]
    # sent, then delivered, opened, clicked; then bounced, complained, unsubscribed, skipped, failed
    assert re.search(r'data-name="sent" data-values="4 0 0 0 0 0 0 0 0"', mail)
    assert re.search(r'data-name="engaged" data-values="0 3 2 1 0 0 0 0 0"', mail)
    assert re.search(r'data-name="lost" data-values="0 0 0 0 1 1 1 1 1"', mail)
    assert "delivery rate 75.0%" in mail and "click to open rate 50.0%" in mail

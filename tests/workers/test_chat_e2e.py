"""Slack and Teams end to end: a trigger over the API, the stack's workers, the stand-ins of
tests/support/chat.py speaking Slack's Web API and Teams' webhooks. A 429 with Retry-After waits
without counting an attempt; a 500 is retried with backoff; the send ledger counts provider calls
that were attempts only."""

from __future__ import annotations

from tests.conftest import unique
from tests.factories import WorkflowFactory, chain, slack_node, teams_node
from tests.support.chat import BOT_TOKEN
from tests.workers.helpers import fire, wait_terminal
from workers.models import SendLedger, StepExecutionLog


def test_slack_rate_limited_then_posted_with_the_bot_token(api, e2e, chat_server):
    channel = f"C-RATE1-{unique()}"
    workflow = WorkflowFactory(
        definition=chain(
            slack_node(
                "chat",
                channel=channel,
                blocks='[{"type": "section", "text": {"type": "mrkdwn", "text": {{ payload.name | json }}}}]',
            )
        )
    )
    trigger_id = fire(api, workflow, {"name": "Ann"})

    trigger = wait_terminal(trigger_id)
    assert trigger.status == "completed", trigger.last_error
    first, second = chat_server.received(path="/api/chat.postMessage", channel=channel)
    assert second.headers["authorization"] == f"Bearer {BOT_TOKEN}"
    assert second.body["text"] == "Hi Ann" and second.body["blocks"][0]["text"]["text"] == "Ann"
    assert first.body == second.body
    # The 429 was a wait: one step log, no failed attempt, one provider call in the ledger.
    steps = StepExecutionLog.objects.filter(trigger_id=trigger_id)
    assert [(s.node_id, s.attempt, s.success) for s in steps] == [("chat", 1, True)]
    ledger = SendLedger.objects.get(trigger_id=trigger_id)
    assert (ledger.status, ledger.send_count, ledger.providers) == ("sent", 1, ["slack"])
    assert trigger.vars["slack_chat"]["provider_message_id"] == "1700000002.000100"


def test_teams_server_errors_are_retried_until_the_card_is_posted(api, e2e, chat_server):
    path = f"/teams/fail2/{unique()}"
    workflow = WorkflowFactory(
        definition=chain(teams_node("team", webhook_url=chat_server.url(path)))
    )
    trigger_id = fire(api, workflow, {"name": "Bo"})

    trigger = wait_terminal(trigger_id)
    assert trigger.status == "completed", trigger.last_error
    requests = chat_server.received(path=path)
    assert len(requests) == 3
    assert {r.headers["idempotency-key"] for r in requests} == {f"{trigger_id}:team"}
    card = requests[-1].body["attachments"][0]["content"]
    assert card["body"][0]["text"] == "Hi Bo"
    steps = StepExecutionLog.objects.filter(trigger_id=trigger_id).order_by("attempt")
    assert [(s.attempt, s.success) for s in steps] == [(1, False), (2, False), (3, True)]
    assert "teams: teams: HTTP 500" in steps[0].error

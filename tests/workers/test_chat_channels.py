"""The slack and teams channels (workers/channels/slack.py, teams.py) run in-process by the engine
against the stand-ins of tests/support/chat.py: where a message goes (the node's address, else
the recipient's `channels`), what travels, and how each answer classes (docs/design/rules.md, rule 7;
a 429 with Retry-After waits without counting an attempt)."""

from __future__ import annotations

import json
import uuid

import pytest

from recipients.models import Recipient
from tests.factories import chain, slack_node, teams_node
from tests.support.chat import BOT_TOKEN
from tests.workers.helpers import due_trigger
from triggers.models import TriggerInstance
from workers.models import SendLedger, StepExecutionLog
from workers.services.engine import step_execute

pytestmark = pytest.mark.django_db


@pytest.fixture
def slack_api(settings, chat_server):
    settings.NOTIFLOW_SLACK_API_URL = chat_server.slack_api_url
    settings.NOTIFLOW_SLACK_BOT_TOKEN = BOT_TOKEN
    return chat_server


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


def step(definition, *, payload=None, **fields) -> TriggerInstance:
    trigger = due_trigger(definition, payload=payload or {"name": "Al"}, **fields)
    step_execute(trigger_id=str(trigger.pk), worker_id="w")
    return TriggerInstance.objects.get(pk=trigger.pk)


def ledger_of(trigger: TriggerInstance) -> SendLedger:
    return SendLedger.objects.get(trigger=trigger)


# --- Slack ---------------------------------------------------------------------------------------


def test_slack_webhook_gets_text_and_rendered_blocks_and_the_output_hides_the_url(chat_server):
    url = chat_server.url(f"/slack/ok/{unique('T')}/secret-part")
    blocks = '[{"type": "section", "text": {"type": "mrkdwn", "text": {{ payload.name | json }}}}]'
    trigger = step(chain(slack_node(webhook_url=url, blocks=blocks)), payload={"name": 'A "q"'})

    assert trigger.status == "completed", trigger.last_error
    (request,) = chat_server.received(path=url.removeprefix(chat_server.base))
    assert request.body["text"] == 'Hi A "q"'
    assert request.body["blocks"] == [
        {"type": "section", "text": {"type": "mrkdwn", "text": 'A "q"'}}
    ]
    output = trigger.vars["slack_chat"]
    assert output["to"].endswith("/…") and "secret-part" not in json.dumps(output)
    assert (ledger_of(trigger).status, ledger_of(trigger).send_count) == ("sent", 1)


def test_slack_channel_posts_with_the_bot_token_and_records_the_ts(slack_api):
    channel = unique("C")
    trigger = step(chain(slack_node(channel=channel)))

    assert trigger.status == "completed", trigger.last_error
    (request,) = slack_api.received(path="/api/chat.postMessage", channel=channel)
    assert request.headers["authorization"] == f"Bearer {BOT_TOKEN}"
    assert request.body["metadata"]["event_payload"] == {"key": f"{trigger.pk}:chat"}
    output = trigger.vars["slack_chat"]
    assert output["to"] == channel and output["provider_message_id"].endswith(".000100")


def test_slack_wrong_bot_token_fails_permanently_naming_slacks_error(slack_api, settings):
    settings.NOTIFLOW_SLACK_BOT_TOKEN = "xoxb-wrong"
    trigger = step(chain(slack_node(channel=unique("C"))))
    assert trigger.status == "failed" and trigger.attempts == 1
    assert "slack: slack: chat.postMessage: invalid_auth" in trigger.last_error


def test_slack_channel_without_a_bot_token_fails_naming_the_setting(slack_api, settings):
    settings.NOTIFLOW_SLACK_BOT_TOKEN = ""
    channel = unique("C")
    trigger = step(chain(slack_node(channel=channel)))
    assert trigger.status == "failed" and "NOTIFLOW_SLACK_BOT_TOKEN" in trigger.last_error
    assert not slack_api.received(path="/api/", channel=channel)


def test_slack_channel_not_found_is_permanent(slack_api):
    trigger = step(chain(slack_node(channel=unique("C-GONE"))))
    assert trigger.status == "failed" and "channel_not_found" in trigger.last_error


def test_slack_500_is_transient_and_retried(slack_api):
    trigger = step(chain(slack_node(channel=unique("C-FAIL2"))))
    assert (trigger.status, trigger.attempts) == ("enqueued", 1)
    assert "slack: HTTP 500" in trigger.last_error


@pytest.mark.parametrize("kind", ["api", "webhook"])
def test_slack_429_with_retry_after_waits_without_counting_an_attempt(slack_api, kind):
    if kind == "api":
        node = slack_node(channel=unique("C-RATE1"))
    else:
        node = slack_node(webhook_url=slack_api.url(f"/slack/rate1/{unique('T')}/x"))
    trigger = due_trigger(chain(node), payload={"name": "Al"})

    assert step_execute(trigger_id=str(trigger.pk), worker_id="w") == "enqueued"

    trigger.refresh_from_db()
    assert (trigger.current_node_id, trigger.attempts, trigger.last_error) == ("chat", 0, "")
    assert 0.5 < (trigger.available_at - trigger.updated_at).total_seconds() <= 1.5
    assert not StepExecutionLog.objects.filter(trigger=trigger).exists()
    ledger = ledger_of(trigger)
    assert (ledger.status, ledger.send_count, ledger.providers) == ("sending", 0, [])


def test_slack_webhook_redirect_is_refused_not_followed(chat_server):
    trigger = step(chain(slack_node(webhook_url=chat_server.url(f"/slack/redirect/{unique('T')}"))))
    assert trigger.status == "failed" and "HTTP 302" in trigger.last_error
    assert not chat_server.received(path="/slack/ok/redirected")


def test_slack_webhook_404_is_permanent(chat_server):
    trigger = step(chain(slack_node(webhook_url=chat_server.url(f"/slack/gone/{unique('T')}"))))
    assert trigger.status == "failed" and "HTTP 404" in trigger.last_error


@pytest.mark.parametrize(
    ("channels", "path"),
    [
        ({"user_id": "U-RECIPIENT"}, "api"),
        ({"channel": "C-RECIPIENT"}, "api"),
        ({"webhook_url": "slack/ok/recipient"}, "webhook"),
    ],
)
def test_slack_without_an_address_goes_to_the_recipients_channels(slack_api, channels, path):
    key = unique("person")
    if path == "webhook":
        channels = {"webhook_url": slack_api.url(f"/slack/ok/{key}")}
    Recipient.objects.create(key=key, channels={"slack": channels})
    trigger = step(chain(slack_node()), recipient=key)

    assert trigger.status == "completed", trigger.last_error
    if path == "api":
        address = next(iter(channels.values()))
        assert slack_api.received(path="/api/chat.postMessage", channel=address)
    else:
        assert slack_api.received(path=f"/slack/ok/{key}")


def test_slack_without_an_address_or_a_recipient_fails_permanently(slack_api):
    trigger = step(chain(slack_node()))
    assert trigger.status == "failed" and "has no recipient" in trigger.last_error


def test_a_recipient_without_a_slack_entry_fails_naming_it(slack_api):
    key = unique("person")
    Recipient.objects.create(key=key, channels={"teams": {"webhook_url": "https://x.test/"}})
    trigger = step(chain(slack_node()), recipient=key)
    assert trigger.status == "failed" and "no channels.slack" in trigger.last_error


def test_blocks_that_render_invalid_json_fail_permanently_naming_the_field(chat_server):
    url = chat_server.url(f"/slack/ok/{unique('T')}")
    blocks = '[{"type": "section", "text": "{{ payload.name }}"}]'  # a quote breaks it
    trigger = step(chain(slack_node(webhook_url=url, blocks=blocks)), payload={"name": 'x"y'})
    assert trigger.status == "failed" and "'blocks' rendered invalid JSON" in trigger.last_error
    assert not chat_server.received(path=url.removeprefix(chat_server.base))


def test_a_webhook_url_on_loopback_is_refused_without_the_setting(chat_server, settings):
    settings.NOTIFLOW_CHAT_ALLOW_PRIVATE = False
    url = chat_server.url(f"/slack/ok/{unique('T')}")
    trigger = step(chain(slack_node(webhook_url=url)))
    assert trigger.status == "failed"
    assert "slack webhook URL refused" in trigger.last_error and "non-public" in trigger.last_error
    assert not chat_server.received(path=url.removeprefix(chat_server.base))


# --- Teams ---------------------------------------------------------------------------------------


def test_teams_card_is_posted_as_an_adaptive_card_attachment(chat_server):
    url = chat_server.url(f"/teams/ok/{unique('T')}/sig")
    card = (
        '{"type": "AdaptiveCard", "version": "1.4", '
        '"body": [{"type": "TextBlock", "text": {{ payload.name | json }}}]}'
    )
    trigger = step(chain(teams_node(webhook_url=url, card=card)))

    assert trigger.status == "completed", trigger.last_error
    (request,) = chat_server.received(path=url.removeprefix(chat_server.base))
    (attachment,) = request.body["attachments"]
    assert attachment["contentType"] == "application/vnd.microsoft.card.adaptive"
    assert attachment["content"]["body"] == [{"type": "TextBlock", "text": "Al"}]
    assert request.headers["idempotency-key"] == f"{trigger.pk}:team"
    assert "sig" not in trigger.vars["teams_team"]["to"]


def test_teams_text_is_sent_as_a_card_of_one_text_block_to_the_recipients_url(chat_server):
    key = unique("person")
    url = chat_server.url(f"/teams/ok/{key}")
    Recipient.objects.create(key=key, channels={"teams": {"webhook_url": url}})
    trigger = step(chain(teams_node()), recipient=key)

    assert trigger.status == "completed", trigger.last_error
    (request,) = chat_server.received(path=f"/teams/ok/{key}")
    content = request.body["attachments"][0]["content"]
    assert content["body"] == [{"type": "TextBlock", "text": "Hi Al", "wrap": True}]


@pytest.mark.parametrize(
    ("rule", "status", "error"),
    [
        ("fail2", "enqueued", "teams: HTTP 500"),
        ("gone", "failed", "teams: HTTP 404"),
        ("invalid", "failed", "teams: HTTP 400"),
    ],
)
def test_teams_answers_class_as_transient_or_permanent(chat_server, rule, status, error):
    trigger = step(chain(teams_node(webhook_url=chat_server.url(f"/teams/{rule}/{unique('T')}"))))
    assert (trigger.status, trigger.attempts) == (status, 1)
    assert error in trigger.last_error


@pytest.mark.parametrize("rule", ["rate1", "legacy429"])
def test_teams_429_waits_or_retries(chat_server, rule):
    trigger = step(chain(teams_node(webhook_url=chat_server.url(f"/teams/{rule}/{unique('T')}"))))
    assert trigger.status == "enqueued"
    if rule == "rate1":  # Retry-After: a wait, no attempt
        assert (trigger.attempts, trigger.last_error) == (0, "")
    else:  # a legacy connector's 200 that reports a 429, with no Retry-After: transient
        assert trigger.attempts == 1 and "HTTP 429" in trigger.last_error


def test_a_person_who_turned_slack_off_is_skipped_without_a_post(chat_server):
    key = unique("person")
    url = chat_server.url(f"/slack/ok/{key}")
    Recipient.objects.create(
        key=key,
        channels={"slack": {"webhook_url": url}},
        preferences={"channels": {"slack": False}},
    )
    trigger = step(chain(slack_node()), recipient=key)

    assert trigger.status == "completed", trigger.last_error
    output = trigger.vars["slack_chat"]
    assert "skipped" in output and output["to"] == key
    assert chat_server.received(path=f"/slack/ok/{key}") == []

"""The slack and teams node types (workflows/nodes/slack.py, teams.py): what the validator refuses
at save, what a render must give (the JSON of blocks and cards is checked once rendered), the
`json` filter that keeps inserted values from breaking it, and what the preview shows."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from tests.factories import chain, slack_node, teams_node
from workflows.nodes.base import RenderError
from workflows.semantics import node_render
from workflows.validation import workflow_validate

HOOK = "https://hooks.slack.com/services/T0/B0/secret"
TEAMS = "https://example.webhook.office.com/webhookb2/abc/IncomingWebhook/def/ghi"
CARD = '{"type": "AdaptiveCard", "version": "1.4", "body": []}'


def problems(node) -> list[tuple[str, str]]:
    return [(e.field, e.message) for e in workflow_validate(chain(node))]


@pytest.mark.parametrize(
    "node",
    [
        slack_node(),  # to the run's recipient
        slack_node(webhook_url=HOOK, blocks='[{"type": "divider"}]'),
        slack_node(channel="C0123", blocks='[{"type": "section", "text": {{ x | json }}}]'),
        teams_node(webhook_url=TEAMS),
        teams_node(card=CARD),
        teams_node(card='{"type": "AdaptiveCard", "body": [{{ payload.block | json }}]}'),
    ],
)
def test_valid_chat_nodes(node):
    assert problems(node) == []


@pytest.mark.parametrize(
    ("node", "field", "message"),
    [
        (slack_node(blocks='{"type": "divider"}'), "blocks", "must be a JSON array"),
        (slack_node(blocks="[{"), "blocks", "Expecting"),
        (slack_node(blocks='[{"text": "x"}]'), "blocks", "block 0 is not an object with a 'type'"),
        (slack_node(webhook_url=HOOK, channel="C1"), "channel", "give one of"),
        (slack_node(webhook_url="ftp://x/y"), "webhook_url", "http(s) URL"),
        (slack_node(webhook_url="https://u:p@x/y"), "webhook_url", "user name or password"),
        (teams_node(text="x", card=CARD), "text", "exactly one of text"),
        ({"id": "team", "type": "teams"}, "text", "exactly one of text"),
        (teams_node(card='{"type": "MessageCard"}'), "card", '"type": "AdaptiveCard"'),
        (teams_node(card="[]"), "card", "must be a JSON object"),
    ],
)
def test_refused_at_save_naming_the_field(node, field, message):
    found = problems(node)
    assert found and found[0][0] == f"nodes[0].{field}", found
    assert message in found[0][1]


def test_fifty_one_blocks_are_refused_with_slacks_limit():
    blocks = "[" + ", ".join(['{"type": "divider"}'] * 51) + "]"
    assert problems(slack_node(blocks=blocks)) == [
        ("nodes[0].blocks", "has 51 blocks; Slack takes at most 50")
    ]


def test_the_json_filter_keeps_a_quote_from_breaking_the_blocks():
    node = slack_node(
        webhook_url=HOOK, blocks='[{"type": "header", "text": {{ payload.name | json }}}]'
    )
    rendered = node_render(node, {"payload": {"name": 'say "hi"\n'}})
    assert rendered["blocks"] == '[{"type": "header", "text": "say \\"hi\\"\\n"}]'
    assert rendered["to"] == HOOK


def test_a_value_that_breaks_the_json_fails_the_render_naming_the_field():
    node = teams_node(card='{"type": "AdaptiveCard", "body": [{{ payload.name }}]}')
    with pytest.raises(RenderError, match="'card' rendered invalid JSON") as caught:
        node_render(node, {"payload": {"name": "plain"}})
    assert caught.value.field == "card"


def test_an_address_that_renders_empty_fails_naming_it():
    with pytest.raises(RenderError, match="'channel' rendered empty"):
        node_render(slack_node(channel="{{ payload.c }}"), {"payload": {"c": " ", "name": "A"}})
    with pytest.raises(RenderError, match="'webhook_url' must be an http"):
        node_render(
            teams_node(webhook_url="{{ payload.u }}"), {"payload": {"u": "nope", "name": "A"}}
        )


def test_a_message_that_renders_empty_fails_naming_its_field():
    with pytest.raises(RenderError, match="'text' rendered empty"):
        node_render(slack_node(text="{{ payload.t }}"), {"payload": {"t": "  "}})
    with pytest.raises(RenderError, match="'card' rendered empty"):
        node_render(teams_node(card="{{ payload.t }}"), {"payload": {"t": ""}})
    # Slack takes blocks without text (its notification then shows no preview text).
    node = slack_node(text="{{ payload.t }}", blocks='[{"type": "divider"}]')
    assert node_render(node, {"payload": {"t": ""}})["blocks"] == '[{"type": "divider"}]'


def test_an_address_is_sent_as_rendered_without_surrounding_space():
    rendered = node_render(
        slack_node(channel=" {{ payload.c }}\n"), {"payload": {"c": "C1", "name": "A"}}
    )
    assert rendered["channel"] == rendered["to"] == "C1"


def test_the_preview_says_where_a_node_without_an_address_sends():
    from workflows.nodes import NODE_TYPES

    shown = NODE_TYPES["slack"].preview(
        slack_node(), {"payload": {"name": "Al"}}, datetime.now(UTC)
    )
    assert shown.ok and shown.note == "sent to the run's recipient (recipient.channels.slack)"
    assert shown.value("text") == "Hi Al"
    placeholder = NODE_TYPES["teams"].placeholder(
        teams_node(webhook_url=TEAMS),
        preview=NODE_TYPES["teams"].preview(
            teams_node(webhook_url=TEAMS), {"payload": {"name": "A"}}, datetime.now(UTC)
        ),
        payload={},
        now=datetime.now(UTC),
    )
    assert placeholder["to"].endswith("/…") and "ghi" not in placeholder["to"]


def test_the_admin_row_edits_a_slack_and_a_teams_node():
    from workflows.admin.forms import NodeForm

    data = {"id": "chat", "type": "slack", "channel": "C1", "text": "Hi", "blocks": "[]"}
    row = NodeForm(data=data)
    assert row.is_valid(), row.errors
    assert row.node(None) == data
    groups = [(types, [f.name for f in fields]) for types, fields in row.groups()]
    # A field the two types share is one input in one group, never two inputs of one name.
    assert ("slack teams", ["webhook_url"]) in groups and ("slack teams", ["text"]) in groups
    assert ("slack", ["channel"]) in groups and ("slack", ["blocks"]) in groups
    names = [name for _, fields in groups for name in fields]
    assert len(names) == len(set(names))
    row = NodeForm(data={"id": "team", "type": "teams", "card": CARD, "webhook_url": TEAMS})
    assert row.is_valid(), row.errors
    assert row.node(None) == {"id": "team", "type": "teams", "card": CARD, "webhook_url": TEAMS}

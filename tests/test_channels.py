"""A channel is one module and one registry line (docs/design/channels.md, "Channels: one spec each"): a
toy channel, its sender written here and its spec registered here and nowhere else, is served by
its provider, run by the engine, held by the suppression list and its API, turned off by
preferences, offered in the admin's category defaults and listed in the docs' channel table.
And the docs' table is the one the registry renders."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from django.utils import timezone

from recipients.category_admin import category_form
from recipients.models import Recipient
from recipients.preferences import channel_labels, known_channels
from tests.factories import chain
from tests.workers.helpers import due_trigger, run_to_the_end
from workers.channels import CHANNELS, worker_capabilities
from workers.channels.base import Channel
from workers.models import SendLedger
from workers.providers import Provider, channel_providers
from workers.services.engine import step_execute
from workflows.channels import (
    CHANNEL_SPECS,
    SUPPRESS_ADDRESS,
    ChannelSpec,
    OneProvider,
    channel_registered,
    channels_table,
)
from workflows.nodes import node_type_registered
from workflows.nodes.base import Rendered
from workflows.nodes.sending import SendingType

DESIGN_MD = Path(__file__).resolve().parent.parent / "docs" / "design" / "channels.md"
TABLE = re.compile(
    r"(<!-- channels table: begin[^\n]*-->\n)(.*?)(<!-- channels table: end -->)", re.S
)
UPDATE = os.environ.get("NOTIFLOW_SNAPSHOT_UPDATE") == "1"

SENT: list[tuple[str, str]] = []  # (to, body) of every message the toy sent


class PigeonChannel(Channel):
    """The toy's sender: a message tied to a pigeon's leg, `to` a loft."""

    def send(
        self,
        rendered: Rendered,
        *,
        idempotency_key: str,
        provider: Provider,
        headers: Mapping[str, str] | None = None,
        recipient: Any = None,
    ) -> dict[str, Any]:
        SENT.append((rendered["to"], rendered["body"]))
        return {
            "message_id": f"coo-{idempotency_key}",
            "to": rendered["to"],
            "sent_at": timezone.now().isoformat(),
            "provider": provider.name,
            "provider_message_id": "",
        }


# The one registry line (here for the test's duration: channel_registered).
PIGEON = ChannelSpec(
    name="pigeon",
    label="Carrier pigeon",
    noun="pigeon",
    providers=OneProvider("loft"),
    sender="tests.test_channels.PigeonChannel",
    suppression=SUPPRESS_ADDRESS,
    caseless=True,
)


class PigeonNode(SendingType):
    """The node type that sends on it (a node type is its own unit: tests/test_node_types.py)."""

    name = "pigeon"
    channel = "pigeon"
    required = ("to", "body")
    optional = ("provider", "skip_suppressed")
    templates = ("to", "body")


@pytest.fixture
def pigeon():
    SENT.clear()
    with channel_registered(PIGEON), node_type_registered(PigeonNode):
        yield PIGEON


def pigeon_post(to: str = "Loft-7") -> dict[str, Any]:
    return chain({"id": "coo", "type": "pigeon", "to": to, "body": "Hello {{ payload.name }}"})


def test_its_provider_serves_it_and_the_worker_can_run_it(pigeon):
    assert channel_providers("pigeon") == (Provider("loft", "pigeon", "loft"),)
    capabilities = worker_capabilities()
    assert capabilities.providers["pigeon"] == "loft"
    assert "pigeon" in capabilities.node_types
    assert isinstance(CHANNELS["pigeon"], PigeonChannel)


def test_unregistered_it_is_nowhere():
    assert "pigeon" not in CHANNEL_SPECS and "pigeon" not in CHANNELS
    assert "pigeon" not in known_channels() and "`pigeon`" not in channels_table()


@pytest.mark.django_db
def test_the_engine_sends_on_it_through_its_provider_with_a_ledger_row(pigeon):
    trigger = run_to_the_end(pigeon_post(), {"name": "Ada"})
    assert trigger.status == "completed", trigger.last_error
    assert SENT == [("Loft-7", "Hello Ada")]
    assert trigger.vars["pigeon_coo"]["provider"] == "loft"
    ledger = SendLedger.objects.get(trigger=trigger, node_id="coo")
    assert ledger.status == "sent" and ledger.providers == ["loft"]


@pytest.mark.django_db
def test_the_suppression_list_and_its_api_hold_it(pigeon, api_client):
    added = api_client.post(
        "/api/suppressions/", {"channel": "pigeon", "recipient": " LOFT-7 "}, format="json"
    )
    assert added.status_code == 201, added.json()
    assert added.json()["recipient"] == "loft-7"  # its spec: compared in any case
    listed = api_client.get("/api/suppressions/", {"channel": "pigeon"})
    assert listed.status_code == 200 and listed.json()["count"] == 1

    trigger = run_to_the_end(pigeon_post(to="Loft-7"), {"name": "Ada"})
    assert trigger.status == "completed", trigger.last_error
    assert SENT == []  # an operator's entry: the send is skipped (opt-out), the run goes on
    assert trigger.vars["pigeon_coo"]["rule"] == "opt-out"


@pytest.mark.django_db
def test_the_suppression_api_refuses_it_unregistered(api_client):
    refused = api_client.post(
        "/api/suppressions/", {"channel": "pigeon", "recipient": "loft-7"}, format="json"
    )
    assert refused.status_code == 400 and "channel" in refused.json()["errors"]


@pytest.mark.django_db
def test_preferences_name_it_and_turn_its_sends_off(pigeon, api_client):
    assert known_channels()[-1] == "pigeon" and channel_labels()["pigeon"] == "Carrier pigeon"
    Recipient.objects.create(key="ada")
    put = api_client.put(
        "/api/recipients/ada/preferences/",
        {"channels": {"pigeon": False}, "categories": {}, "workflows": {}},
        format="json",
    )
    assert put.status_code == 200, put.json()

    trigger = due_trigger(pigeon_post(), payload={"name": "Ada"}, recipient="ada")
    step_execute(trigger_id=str(trigger.pk), worker_id="w")
    trigger.refresh_from_db()
    assert trigger.status == "completed" and SENT == []
    assert trigger.vars["pigeon_coo"]["preference"] == "channels.pigeon"


def test_the_admins_category_defaults_offer_it(pigeon):
    field = category_form().base_fields["default_pigeon"]
    assert field.label == "Carrier pigeon on by default"


def test_the_docs_channel_table_lists_it(pigeon):
    assert "| `pigeon` | Carrier pigeon |" in channels_table()


def test_the_docs_channel_table_is_the_one_the_registry_renders():
    """Rendered from the specs (workflows.channels.channels_table); to accept a change:
    NOTIFLOW_SNAPSHOT_UPDATE=1 python -m pytest tests/test_channels.py"""
    text = DESIGN_MD.read_text()
    match = TABLE.search(text)
    assert match, "docs/design/channels.md has no channels table markers"
    if UPDATE:
        DESIGN_MD.write_text(text[: match.start(2)] + channels_table() + text[match.end(2) :])
        return
    assert match.group(2) == channels_table()

"""A run for a recipient end to end (docs/design/recipients.md, "Recipients"): the profile is upserted
with the trigger over HTTP (identify on trigger), a worker renders `{{ recipient.name }}` and
sends an email node without `to` to the recipient's address at the SMTP stand-in, and a second
run for the same person by id reaches the address the profile has then."""

from __future__ import annotations

import pytest

from tests.conftest import unique
from tests.factories import WorkflowFactory, chain, email_node
from tests.workers.helpers import wait_terminal

pytestmark = pytest.mark.e2e


def test_an_email_without_to_reaches_the_recipient_and_renders_the_profile(api, smtp_server):
    node = email_node(
        "welcome",
        subject="Welcome {{ recipient.name }}",
        body="Your plan: {{ recipient.properties.plan }}",
    )
    del node["to"]
    workflow = WorkflowFactory(definition=chain(node))
    key, address = unique("user"), f"ok-{unique()}@example.com"
    profile = {"id": key, "email": address, "name": "Ada", "properties": {"plan": "pro"}}

    created = api.post(
        "/api/triggers/",
        {"workflow": workflow.key, "idempotency_key": unique("k"), "recipient": profile},
    )
    assert created.status_code == 201, created.text
    assert created.json()["recipient"] == key
    trigger = wait_terminal(created.json()["id"])
    assert trigger.status == "completed", trigger.last_error
    (mail,) = smtp_server.handler.to(address)
    assert mail.subject == "Welcome Ada"
    assert "Your plan: pro" in mail.body

    moved = f"moved-{unique()}@example.com"
    assert api.patch(f"/api/recipients/{key}/", {"email": moved}).status_code == 200
    again = api.post(
        "/api/triggers/",
        {"workflow": workflow.key, "idempotency_key": unique("k"), "recipient": key},
    )
    assert again.status_code == 201, again.text
    assert wait_terminal(again.json()["id"]).status == "completed"
    (second,) = smtp_server.handler.to(moved)
    assert second.subject == "Welcome Ada"
    runs = api.get(f"/api/triggers/?recipient={key}").json()
    assert {run["id"] for run in runs["results"]} == {created.json()["id"], again.json()["id"]}

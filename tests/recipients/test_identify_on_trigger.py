"""A trigger names its recipient (docs/design/recipients.md, "Recipients"): by id (it must exist: a 400
naming `recipient` otherwise), or with a profile object, upserted (merged) in the trigger's
transaction; bulk triggers the same, item by item. The run records the id, the trigger JSON
shows it, and `GET /api/triggers/?recipient=` lists a person's runs."""

from __future__ import annotations

from unittest import mock

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

import triggers.services
from recipients.models import Recipient
from tests.conftest import unique
from tests.factories import WorkflowFactory
from triggers.models import TriggerInstance

pytestmark = pytest.mark.django_db


@pytest.fixture
def workflow(db):
    return WorkflowFactory()


def trigger(client, workflow, **extra):
    body = {"workflow": workflow.key, "idempotency_key": unique("k"), "payload": {}, **extra}
    return client.post("/api/triggers/", body, format="json")


def test_a_trigger_naming_a_known_recipient_records_it(api_client, workflow):
    key = unique("user")
    Recipient.objects.create(key=key, email="ada@example.com")
    response = trigger(api_client, workflow, recipient=key)
    assert response.status_code == 201, response.content
    assert response.json()["recipient"] == key
    assert TriggerInstance.objects.get(pk=response.json()["id"]).recipient == key


def test_an_unknown_recipient_id_is_a_400_naming_recipient_and_stores_nothing(api_client, workflow):
    key = unique("nobody")
    response = trigger(api_client, workflow, recipient=key)
    assert response.status_code == 400
    assert list(response.json()["errors"]) == ["recipient"]
    assert key in response.json()["detail"]
    assert not TriggerInstance.objects.filter(recipient=key).exists()


def test_a_recipient_object_is_upserted_with_the_trigger(api_client, workflow):
    key = unique("user")
    Recipient.objects.create(key=key, name="Ada", properties={"plan": "free", "seats": 1})
    response = trigger(
        api_client,
        workflow,
        recipient={"id": key, "email": "ada@example.com", "properties": {"plan": "pro"}},
    )
    assert response.status_code == 201, response.content
    stored = Recipient.objects.get(key=key)
    assert (stored.name, stored.email) == ("Ada", "ada@example.com")  # merged, not replaced
    assert stored.properties == {"plan": "pro", "seats": 1}
    created = trigger(api_client, workflow, recipient={"id": unique("new"), "name": "Bo"})
    assert created.status_code == 201
    assert Recipient.objects.get(key=created.json()["recipient"]).name == "Bo"


def test_an_invalid_recipient_object_is_a_400_naming_its_field(api_client, workflow):
    response = trigger(api_client, workflow, recipient={"id": unique("u"), "phone": "0100"})
    assert response.status_code == 400
    assert list(response.json()["errors"]["recipient"]) == ["phone"]
    assert trigger(api_client, workflow, recipient=42).status_code == 400
    assert trigger(api_client, workflow, recipient="").status_code == 400


def test_the_profile_is_not_stored_when_the_trigger_statement_fails(api_client, workflow):
    key = unique("user")
    with (
        mock.patch.object(triggers.services, "_intake", side_effect=RuntimeError("boom")),
        pytest.raises(RuntimeError),
    ):
        triggers.services.triggers_create(
            [
                triggers.services.TriggerRequest(
                    workflow.key,
                    unique("k"),
                    {},
                    recipient=key,
                    profile=triggers.services.Profile(key=key, fields={"name": "Ada"}),
                )
            ]
        )
    assert not Recipient.objects.filter(key=key).exists()


def test_bulk_triggers_identify_and_refuse_item_by_item(api_client, workflow):
    known, new = unique("user"), unique("user")
    Recipient.objects.create(key=known)

    def item(**extra):
        return {"workflow": workflow.key, "idempotency_key": unique("k"), **extra}

    items = [
        item(recipient=known),
        item(recipient={"id": new, "name": "First"}),
        item(recipient=new),  # known by the time it is checked: the item above creates it
        item(recipient=unique("nobody")),
        item(recipient={"id": new, "email": "new@example.com"}),
    ]
    response = api_client.post("/api/triggers/bulk/", {"triggers": items}, format="json")
    results = response.json()["results"]
    assert [r["status"] for r in results] == [201, 201, 201, 400, 201]
    assert list(results[3]["errors"]) == ["recipient"]
    stored = Recipient.objects.get(key=new)
    assert (stored.name, stored.email) == ("First", "new@example.com")


def test_the_list_filters_a_persons_runs(api_client, workflow):
    key = unique("user")
    Recipient.objects.create(key=key)
    mine = [trigger(api_client, workflow, recipient=key).json()["id"] for _ in range(2)]
    trigger(api_client, workflow)
    listed = api_client.get("/api/triggers/", {"recipient": key}).json()
    assert sorted(t["id"] for t in listed["results"]) == sorted(mine)
    assert api_client.get("/api/triggers/", {"recipient": ""}).status_code == 400


def test_a_trigger_without_a_recipient_opens_no_transaction_for_it(api_client, workflow):
    trigger(api_client, workflow)  # warm: the workflow and the prepared statement
    with CaptureQueriesContext(connection) as without:
        assert trigger(api_client, workflow).status_code == 201
    sent = [query["sql"] for query in without.captured_queries]
    assert not any('FROM "recipient"' in sql or "INTO recipient " in sql for sql in sent)
    assert not any(sql.startswith("SAVEPOINT") for sql in sent)
    with CaptureQueriesContext(connection) as identified:
        assert trigger(api_client, workflow, recipient={"id": unique("u")}).status_code == 201
    assert any("INTO recipient " in query["sql"] for query in identified.captured_queries)


def test_a_trigger_naming_a_recipient_by_id_costs_no_statement_more(api_client, workflow):
    """The intake statement itself reads whether the recipient exists (issue 33's A/B: a
    trigger with a recipient costs no more than one with an inline address)."""
    key = unique("user")
    Recipient.objects.create(key=key)
    trigger(api_client, workflow)  # warm: the workflow and the prepared statement
    with CaptureQueriesContext(connection) as without:
        assert trigger(api_client, workflow).status_code == 201
    with CaptureQueriesContext(connection) as named:
        assert trigger(api_client, workflow, recipient=key).status_code == 201
    with CaptureQueriesContext(connection) as unknown:
        assert trigger(api_client, workflow, recipient=unique("nobody")).status_code == 400
    assert len(named.captured_queries) == len(without.captured_queries)
    assert len(unknown.captured_queries) == len(without.captured_queries)


def test_the_schema_says_recipient_is_an_id_or_a_profile_object():
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator().get_schema(request=None, public=True)
    field = schema["components"]["schemas"]["TriggerInput"]["properties"]["recipient"]
    assert field["oneOf"][0]["type"] == "string"
    assert field["oneOf"][1] == {"$ref": "#/components/schemas/RecipientItem"}
    assert schema["components"]["schemas"]["RecipientItem"]["additionalProperties"] is False

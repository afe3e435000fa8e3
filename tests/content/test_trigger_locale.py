"""A trigger's `locale` (docs/translations.md): first in its run's locale chain, taken by
POST /api/triggers/ and each bulk item, a BCP 47 tag or a 400 naming it, part of the request a
key is first used with, and not taken with a topic (each fan-out run is in its recipient's)."""

from __future__ import annotations

import pytest

from recipients.models import Topic
from tests.conftest import unique
from tests.factories import WorkflowFactory
from triggers.models import TriggerInstance

pytestmark = pytest.mark.django_db


@pytest.fixture
def workflow():
    return WorkflowFactory()


def body(workflow, **fields):
    return {"workflow": workflow.key, "idempotency_key": unique("k"), "payload": {}, **fields}


def test_a_trigger_keeps_its_locale_and_shows_it(api_client, workflow):
    response = api_client.post("/api/triggers/", body(workflow, locale="fr-CA"), format="json")
    assert response.status_code == 201 and response.json()["locale"] == "fr-CA"
    assert TriggerInstance.objects.get(pk=response.json()["id"]).locale == "fr-CA"
    plain = api_client.post("/api/triggers/", body(workflow), format="json")
    assert plain.json()["locale"] == ""


@pytest.mark.parametrize("locale", ["xx", "fr_CA", "français", 7])
def test_a_locale_that_is_not_one_is_a_400_naming_it_and_stores_nothing(
    api_client, workflow, locale
):
    response = api_client.post("/api/triggers/", body(workflow, locale=locale), format="json")
    assert response.status_code == 400
    assert list(response.json()["errors"]) == ["locale"]
    assert not TriggerInstance.objects.filter(workflow=workflow).exists()


def test_each_bulk_item_takes_its_locale_and_a_bad_one_is_that_items_400(api_client, workflow):
    items = [body(workflow, locale="pt-BR"), body(workflow, locale="xx")]
    results = api_client.post("/api/triggers/bulk/", {"triggers": items}, format="json")
    first, second = results.json()["results"]
    assert (first["status"], first["trigger"]["locale"]) == (201, "pt-BR")
    assert (second["status"], list(second["errors"])) == (400, ["locale"])


def test_the_same_key_with_another_locale_is_another_request(api_client, workflow):
    first = body(workflow, locale="fr")
    assert api_client.post("/api/triggers/", first, format="json").status_code == 201
    assert api_client.post("/api/triggers/", first, format="json").status_code == 200
    other = api_client.post("/api/triggers/", {**first, "locale": "de"}, format="json")
    assert other.status_code == 422
    assert "differing: locale" in other.json()["detail"]


def test_a_topic_takes_no_locale(api_client, workflow):
    topic = Topic.objects.create(key=unique("topic"))
    response = api_client.post(
        "/api/triggers/", body(workflow, topic=topic.key, locale="fr"), format="json"
    )
    assert response.status_code == 400
    assert list(response.json()["errors"]) == ["locale"]

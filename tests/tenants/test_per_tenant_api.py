"""What is kept per tenant over the API (docs/tenants.md): a person's preferences for a tenant
(`GET/PUT/PATCH /api/recipients/<id>/preferences/?tenant=`), a tenant's own catalogs
(`/api/translations/<locale>/?tenant=`), the inbox feed of a tenant's runs (`?tenant=`); an
unknown tenant is a 400 naming `tenant`; deleting the tenant takes them along."""

from __future__ import annotations

import pytest
from django.utils import timezone

from content.models import TranslationCatalog
from inbox.models import InboxMessage
from recipients.models import Category, Recipient, RecipientTenantPreferences
from tests.factories import WorkflowFactory
from tests.inbox.test_feed_api import reader
from triggers.models import TriggerInstance

pytestmark = pytest.mark.django_db


def inbox_message(run: TriggerInstance, title: str) -> InboxMessage:
    return InboxMessage.objects.create(
        recipient=run.recipient,
        trigger_id=run.pk,
        node_id="bell",
        workflow_key=run.workflow.key,
        title=title,
        body=title,
        body_html=f"<p>{title}</p>",
    )


def prefs(key: str, tenant: str | None = None) -> str:
    return f"/api/recipients/{key}/preferences/" + (f"?tenant={tenant}" if tenant else "")


def test_a_persons_preferences_for_a_tenant_are_kept_beside_their_own(api_client, acme):
    Category.objects.create(slug="news")
    Recipient.objects.create(key="ada", preferences={"channels": {"sms": False}})
    empty = api_client.get(prefs("ada", "acme"))
    assert empty.status_code == 200
    assert empty.json() == {"channels": {}, "categories": {}, "workflows": {}}

    body = {"categories": {"news": {"email": False}}}
    put = api_client.put(prefs("ada", "acme"), body, format="json")
    assert put.status_code == 200 and put.json()["categories"] == {"news": {"email": False}}
    patched = api_client.patch(prefs("ada", "acme"), {"channels": {"push": True}}, format="json")
    assert patched.json()["channels"] == {"push": True}
    assert patched.json()["categories"] == {"news": {"email": False}}

    assert api_client.get(prefs("ada")).json()["channels"] == {"sms": False}  # their own
    stored = RecipientTenantPreferences.objects.get(recipient_id="ada", tenant_id="acme")
    assert stored.preferences["categories"] == {"news": {"email": False}}


@pytest.mark.parametrize("method", ["get", "put", "patch"])
def test_an_unknown_tenant_is_a_400_naming_it(api_client, acme, method):
    Recipient.objects.create(key="ada")
    response = getattr(api_client, method)(prefs("ada", "nobody"), {}, format="json")
    assert response.status_code == 400
    assert list(response.json()["errors"]) == ["tenant"]


def test_a_bad_preference_for_a_tenant_is_a_400_naming_its_path(api_client, acme):
    Recipient.objects.create(key="ada")
    body = {"categories": {"nope": False}}
    response = api_client.put(prefs("ada", "acme"), body, format="json")
    assert response.status_code == 400
    assert "categories.nope" in response.json()["errors"]
    assert not RecipientTenantPreferences.objects.exists()


def test_a_key_limited_to_workflows_may_not_read_them(acme):
    from tests.tenants.test_tenants_api import client

    Recipient.objects.create(key="ada")
    limited = client(scope="trigger", workflows=["welcome"])
    assert limited.get(prefs("ada", "acme")).status_code == 403


def test_a_tenants_catalog_is_its_own_and_the_shared_one_stays(acme):
    from tests.tenants.test_tenants_api import client

    admin = client(scope="admin")
    shared = admin.put("/api/translations/fr/", {"messages": {"a": "shared"}}, format="json")
    assert shared.status_code == 201 and shared.json()["tenant"] == ""
    own = admin.put("/api/translations/fr/?tenant=acme", {"messages": {"a": "acme"}}, format="json")
    assert own.status_code == 201, own.json()
    assert (own.json()["tenant"], own.json()["version"]) == ("acme", 1)
    assert admin.get("/api/translations/fr/").json()["messages"] == {"a": "shared"}
    assert admin.get("/api/translations/fr/?tenant=acme").json()["messages"] == {"a": "acme"}
    listed = admin.get("/api/translations/?tenant=acme").json()["results"]
    assert [(c["locale"], c["tenant"]) for c in listed] == [("fr", "acme")]
    assert [c["tenant"] for c in admin.get("/api/translations/").json()["results"]] == [""]
    patched = admin.patch(
        "/api/translations/fr/?tenant=acme", {"messages": {"b": "x"}}, format="json"
    )
    assert patched.json()["messages"] == {"a": "acme", "b": "x"}
    unknown = admin.put("/api/translations/fr/?tenant=nobody", {"messages": {}}, format="json")
    assert unknown.status_code == 400 and list(unknown.json()["errors"]) == ["tenant"]
    assert admin.delete("/api/translations/fr/?tenant=acme").status_code == 204
    assert admin.get("/api/translations/fr/").status_code == 200  # the shared one stays


def test_deleting_a_tenant_takes_its_catalogs_and_peoples_preferences(acme):
    from tests.tenants.test_tenants_api import client

    admin = client(scope="admin")
    person = Recipient.objects.create(key="ada")
    RecipientTenantPreferences.objects.create(recipient=person, tenant=acme, preferences={})
    admin.put("/api/translations/fr/?tenant=acme", {"messages": {"a": "b"}}, format="json")
    assert admin.delete("/api/tenants/acme/").status_code == 204
    assert not RecipientTenantPreferences.objects.exists()
    assert not TranslationCatalog.objects.filter(tenant="acme").exists()
    assert Recipient.objects.filter(key="ada").exists()


def test_the_inbox_feed_filters_by_tenant(acme):
    workflow = WorkflowFactory()
    runs = {
        tenant: TriggerInstance.objects.create(
            workflow=workflow,
            workflow_version=workflow.current_version,
            idempotency_key=f"k-{tenant}",
            recipient="ada",
            tenant=tenant,
            status="completed",
            available_at=timezone.now(),
        )
        for tenant in ("acme", "")
    }
    mine = inbox_message(runs["acme"], "Acme news")
    inbox_message(runs[""], "Plain")
    api = reader("ada")
    feed = api.get("/api/inbox/", {"tenant": "acme"})
    assert feed.status_code == 200, feed.json()
    assert [m["id"] for m in feed.json()["results"]] == [str(mine.pk)]
    assert len(api.get("/api/inbox/").json()["results"]) == 2
    assert api.get("/api/inbox/", {"tenant": "nobody"}).status_code == 400

"""The admin preview and a person's dry run for a tenant (docs/tenants.md, "8. Preview and dry run
for a tenant"): both render and decide with the tenant as a run for it does — its `tenant.*`, its
default locale, its own catalog, its layout, the person's preferences for it and its category
defaults — and agree with a real run for it; an unknown tenant is refused naming it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.core import mail

from content.services import catalog_put
from recipients.models import Category, Recipient
from tenants.selectors import TENANTS
from tenants.services import tenant_put
from tests.factories import WorkflowFactory, chain, email_node
from tests.support.layouts import layouts  # noqa: F401 (fixture)
from tests.triggers.test_explain import api  # noqa: F401 (fixture)
from tests.workers.helpers import due_trigger
from workers.models import StepExecutionLog
from workers.services.engine import step_execute
from workflows.preview import preview_tenant, workflow_preview

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("layouts")]

PAYLOAD = {"email": "ada@example.com", "name": "Ada"}
# Its subject translated (the tenant's own French catalog overrides the shared one), its body
# reading the tenant's properties, in no layout of its own: the tenant's.
DEFINITION = chain(
    email_node(
        "mail",
        subject='{{ "welcome.subject" | t: name: payload.name }}',
        body="{{ tenant.name }}: {{ tenant.properties.logo_url }}",
    )
)


@pytest.fixture(autouse=True)
def locmem(settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"


@pytest.fixture
def globex() -> Iterator[str]:
    Category.objects.create(slug="news")  # the category its defaults name
    tenant_put(
        tenant_id="globex",
        fields={
            "name": "Globex",
            "properties": {"logo_url": "https://globex.example/logo.png"},
            "default_locale": "fr",
            "layout": "brand",
            "preferences": {"news": {"email": False}},
        },
        actor="tests",
    )
    catalog_put(
        locale="fr",
        tenant="globex",
        messages={"welcome": {"subject": "Salut {{ name }}, de {{ tenant.name }}"}},
        actor="tests",
    )
    yield "globex"
    TENANTS.forget()


def test_the_preview_for_a_tenant_is_what_a_run_for_it_sends(globex):
    run = due_trigger(DEFINITION, payload=PAYLOAD, tenant=globex)
    step_execute(trigger_id=str(run.pk), worker_id="w")
    [sent] = mail.outbox
    tenant = preview_tenant(globex)
    assert tenant is not None and tenant.default_locale == "fr"
    workflow = {"key": run.workflow.key, "name": run.workflow.name, "version": 1}

    preview = workflow_preview(
        definition=DEFINITION, payload=PAYLOAD, workflow=workflow, tenant=tenant
    )

    assert preview.ok, preview
    (node,) = preview.nodes
    assert sent.subject == node.value("subject") == "Salut Ada, de Globex"
    assert sent.body == node.value("body")
    assert sent.body.startswith("Globex: https://globex.example/logo.png\n-- \nExemple SA")
    html = [body for body, kind in sent.alternatives if kind == "text/html"]
    assert html == [node.value("html")] and "<h1>Example</h1>" in html[0]  # the tenant's layout
    rendered = StepExecutionLog.objects.get(trigger=run).input["content"]
    assert "globex/fr" in str(rendered)  # the run rendered with the tenant's catalog
    # Without the tenant, the preview fails where a run without one fails: `tenant` is undefined.
    alone = workflow_preview(definition=DEFINITION, payload=PAYLOAD, workflow=workflow)
    assert not alone.ok and "tenant" in alone.nodes[0].error


def test_the_admin_preview_takes_a_tenant_and_refuses_an_unknown_one(admin_client, globex):
    workflow = WorkflowFactory(definition=DEFINITION)
    url = f"/admin/workflows/workflow/{workflow.pk}/preview/"
    form = {"payload": '{"email": "ada@example.com", "name": "Ada"}', "preview": "1"}

    page = admin_client.post(url, {**form, "tenant": globex}).content.decode()
    assert "Salut Ada, de Globex" in page and "globex.example/logo.png" in page

    refused = admin_client.post(url, {**form, "tenant": "nope"}).content.decode()
    assert "tenant &#x27;nope&#x27; does not exist" in refused
    assert "Salut" not in refused


def dry_run(api: Any, person: str, workflow: str, **params: str) -> Any:  # noqa: F811
    return api.get(f"/api/recipients/{person}/explain/", {"workflow": workflow, **params})


def test_the_dry_run_for_a_tenant_decides_as_a_run_for_it(api, globex):  # noqa: F811
    """The tenant's default turns the category's email off: the dry run for the tenant says
    skipped, with the rule a real run for it records; without the tenant it would be sent."""
    Recipient.objects.create(key="ada", email="ada@example.com", name="Ada")
    definition = {**DEFINITION, "preference_category": "news"}
    run = due_trigger(definition, payload=PAYLOAD, recipient="ada", tenant=globex)
    step_execute(trigger_id=str(run.pk), worker_id="w")
    recorded = StepExecutionLog.objects.get(trigger=run).output["decision"]
    key = run.workflow.key

    answer = dry_run(api, "ada", key, tenant=globex)
    assert answer.status_code == 200, answer.content
    body = answer.json()
    (node,) = body["nodes"]
    assert body["tenant"] == globex
    assert (node["decision"], node["rule"]) == (recorded["decision"], recorded["rule"])
    assert node["evidence"]["preference"] == "tenants.globex.defaults.news.email"
    assert node["reason"] == recorded["reason"]
    (alone,) = dry_run(api, "ada", key).json()["nodes"]
    assert alone["decision"] == "sent" and mail.outbox == []

    unknown = dry_run(api, "ada", key, tenant="nope")
    assert unknown.status_code == 400 and "tenant" in unknown.json()["errors"]


def test_the_why_panel_dry_runs_for_the_tenant_of_the_latest_run_or_the_one_chosen(
    admin_client, globex
):
    Recipient.objects.create(key="ada", email="ada@example.com", name="Ada")
    run = due_trigger({**DEFINITION, "preference_category": "news"}, payload=PAYLOAD,
                      recipient="ada", tenant=globex)  # fmt: skip
    page = admin_client.get("/admin/recipients/recipient/ada/change/").content.decode()
    panel = page[page.index('id="why"') :]
    assert f'<option value="{globex}" selected>' in panel
    assert 'data-decision="skipped"' in panel and "at globex" in panel

    url = f"/admin/deliveries/deliveryevent/why/ada/?workflow={run.workflow.key}"
    chosen = admin_client.get(url + "&tenant=").content.decode()
    assert 'data-decision="sent"' in chosen
    unknown = admin_client.get(url + "&tenant=nope").content.decode()
    assert 'id="why-tenant-problem"' in unknown and "data-decision" not in unknown

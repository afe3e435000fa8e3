"""Authoring in the admin: inline node and edge rows, the one validator, versions, picture."""

from __future__ import annotations

import json
import re

import pytest
from django.test import Client

from recipients.models import Category
from tests.conftest import unique
from tests.factories import WorkflowFactory, chain, delay_node, email_node, sms_node
from workflows.models import Workflow

pytestmark = pytest.mark.django_db

ADD_URL = "/admin/workflows/workflow/add/"


def management(prefix: str, total: int, initial: int = 0) -> dict[str, str]:
    return {
        f"{prefix}-TOTAL_FORMS": str(total),
        f"{prefix}-INITIAL_FORMS": str(initial),
        f"{prefix}-MIN_NUM_FORMS": "0",
        f"{prefix}-MAX_NUM_FORMS": "1000",
    }


def three_node_post(key: str, **overrides: str) -> dict[str, str]:
    data = {
        "key": key,
        "name": "Welcome",
        "description": "",
        "active": "on",
        "queue": "",
        "priority": "5",
        "entry_node_id": "hello",
        **management("nodes", 3),
        "nodes-0-id": "hello",
        "nodes-0-type": "email",
        "nodes-0-to": "{{ payload.email }}",
        "nodes-0-subject": "Hi {{ payload.name }}",
        "nodes-0-body": "Line one\r\nLine two",
        "nodes-0-delay_unit": "m",
        "nodes-1-id": "pause",
        "nodes-1-type": "delay",
        "nodes-1-delay_amount": "15",
        "nodes-1-delay_unit": "m",
        "nodes-2-id": "text",
        "nodes-2-type": "sms",
        "nodes-2-to": "{{ payload.phone }}",
        "nodes-2-body": "Hi {{ payload.name }}",
        "nodes-2-delay_unit": "m",
        **management("edges", 2),
        "edges-0-source": "hello",
        "edges-0-target": "pause",
        "edges-1-source": "pause",
        "edges-1-target": "text",
        "edges-1-when": "payload.phone != empty",
        "_save": "Save",
    }
    data.update(overrides)
    return data


def test_inline_rows_create_version_one_with_the_assembled_definition(admin_client):
    response = admin_client.post(ADD_URL, three_node_post("wf-inline"))

    assert response.status_code == 302, response.content.decode()[:2000]
    workflow = Workflow.objects.get(key="wf-inline")
    assert workflow.version == 1
    assert workflow.versions.get(number=1).created_by == "admin:operator"
    assert workflow.definition == {
        "entry_node_id": "hello",
        "nodes": [
            {
                "id": "hello",
                "type": "email",
                "to": "{{ payload.email }}",
                "subject": "Hi {{ payload.name }}",
                "body": "Line one\nLine two",
            },
            {"id": "pause", "type": "delay", "duration": "15m"},
            {
                "id": "text",
                "type": "sms",
                "to": "{{ payload.phone }}",
                "body": "Hi {{ payload.name }}",
            },
        ],
        "edges": [
            {"from": "hello", "to": "pause"},
            {"from": "pause", "to": "text", "when": "payload.phone != empty"},
        ],
    }


def test_validator_errors_show_on_the_row_and_field_and_nothing_is_saved(admin_client):
    data = three_node_post(
        "wf-broken",
        **{"nodes-0-subject": "Hi {{ payload.name", "edges-1-when": "payload.phone =="},
    )
    response = admin_client.post(ADD_URL, data)

    assert response.status_code == 200
    assert not Workflow.objects.filter(key="wf-broken").exists()
    form = response.context["adminform"].form
    nodes, edges = form.nodes.forms, form.edges.forms
    assert "template" in nodes[0].errors["subject"][0]
    assert "condition" in edges[1].errors["when"][0]
    assert not nodes[1].errors and not edges[0].errors
    assert "2 problem(s)" in str(form.non_field_errors())


def test_graph_errors_land_on_the_unreachable_node_and_the_entry_choice(admin_client):
    data = three_node_post(
        "wf-graph",
        **{
            "edges-1-source": "",
            "edges-1-target": "",
            "edges-1-when": "",
            "entry_node_id": "ghost",
        },
    )
    response = admin_client.post(ADD_URL, data)

    assert response.status_code == 200
    form = response.context["adminform"].form
    assert "does not exist" in form.errors["entry_node_id"][0]
    assert not Workflow.objects.filter(key="wf-graph").exists()

    data["entry_node_id"] = "hello"
    response = admin_client.post(ADD_URL, data)
    text_row = response.context["adminform"].form.nodes.forms[2]
    assert "unreachable" in str(text_row.non_field_errors())


def test_missing_delay_is_reported_on_the_wait_field(admin_client):
    response = admin_client.post(
        ADD_URL, three_node_post("wf-delay", **{"nodes-1-delay_amount": ""})
    )

    assert response.status_code == 200
    assert "required" in response.context["adminform"].form.nodes.forms[1].errors["delay_amount"][0]


def change_post(client: Client, workflow: Workflow, **overrides: str) -> dict[str, str]:
    """The change form as the browser would submit it unchanged, with `overrides` applied."""
    form = client.get(f"/admin/workflows/workflow/{workflow.pk}/change/").context["adminform"].form
    data: dict[str, str] = {
        "name": workflow.name,
        "description": "",
        "queue": workflow.queue,
        "priority": str(workflow.priority),
        "_save": "Save",
    }
    if workflow.active:
        data["active"] = "on"
    data["entry_node_id"] = form.initial["entry_node_id"]
    for formset in (form.nodes, form.edges):
        data.update(
            management(formset.prefix, len(formset.initial_forms), len(formset.initial_forms))
        )
        for row in formset.initial_forms:
            for name, value in row.initial.items():
                if isinstance(value, list):  # a multiple choice: one value per ticked box
                    data[f"{row.prefix}-{name}"] = value  # type: ignore[assignment]
                else:
                    data[f"{row.prefix}-{name}"] = "" if value is None else str(value)
    data.update(overrides)
    return data


def test_saving_unchanged_keeps_the_version_and_the_delay_spelling(admin_client):
    workflow = WorkflowFactory(
        definition=chain(email_node("hello"), delay_node("pause", delay_ms=90000), sms_node("text"))
    )
    response = admin_client.post(
        f"/admin/workflows/workflow/{workflow.pk}/change/", change_post(admin_client, workflow)
    )

    assert response.status_code == 302
    workflow.refresh_from_db()
    assert workflow.version == 1
    assert workflow.definition["nodes"][1] == {"id": "pause", "type": "delay", "delay_ms": 90000}


def test_a_node_field_no_row_edits_is_kept_as_stored(admin_client):
    workflow = WorkflowFactory(definition=chain(email_node("hello", max_recipients=3)))
    data = change_post(admin_client, workflow, **{"nodes-0-body": "Changed"})
    response = admin_client.post(f"/admin/workflows/workflow/{workflow.pk}/change/", data)

    assert response.status_code == 302
    workflow.refresh_from_db()
    assert workflow.version == 2
    assert workflow.definition["nodes"][0]["max_recipients"] == 3


def test_changing_a_row_makes_a_new_version_and_keeps_the_old(admin_client):
    workflow = WorkflowFactory(definition=chain(email_node("hello"), sms_node("text")))
    data = change_post(admin_client, workflow, **{"nodes-1-body": "Changed {{ payload.name }}"})
    response = admin_client.post(f"/admin/workflows/workflow/{workflow.pk}/change/", data)

    assert response.status_code == 302
    workflow.refresh_from_db()
    assert workflow.version == 2
    assert workflow.definition["nodes"][1]["body"] == "Changed {{ payload.name }}"
    assert workflow.versions.get(number=1).definition["nodes"][1]["body"] == "Hi {{ payload.name }}"
    assert workflow.versions.get(number=2).created_by == "admin:operator"


def test_workflow_page_shows_the_dag_picture_of_the_current_version(admin_client):
    workflow = WorkflowFactory(definition=chain(email_node("hello"), sms_node("text")))
    page = admin_client.get(f"/admin/workflows/workflow/{workflow.pk}/change/").content.decode()

    assert '<svg xmlns="http://www.w3.org/2000/svg" class="workflow-dag"' in page
    assert 'data-node-id="hello"' in page and 'data-node-id="text"' in page
    assert "Picture — version 1" in page
    # Works offline: no script, style or image comes from another origin (no CDN).
    assert re.search(r'<(script|link|img)[^>]+(src|href)="(https?:)?//', page) is None


def test_the_change_page_has_no_empty_rows_until_asked_and_the_add_page_one_node_row(
    admin_client,
):
    workflow = WorkflowFactory(definition=chain(email_node("hello"), sms_node("text")))
    form = (
        admin_client.get(f"/admin/workflows/workflow/{workflow.pk}/change/")
        .context["adminform"]
        .form
    )
    assert (form.nodes.total_form_count(), form.edges.total_form_count()) == (2, 1)

    added = admin_client.get(ADD_URL).context["adminform"].form
    assert (added.nodes.total_form_count(), added.edges.total_form_count()) == (1, 0)
    page = admin_client.get(ADD_URL).content.decode()
    assert 'data-add="nodes">Add a node</button>' in page  # more rows on demand
    assert 'id="nodes-empty"' in page and 'id="edges-empty"' in page


def test_preview_and_send_test_sit_beside_the_fields_above_the_definition(admin_client):
    workflow = WorkflowFactory(definition=chain(email_node("hello"), sms_node("text")))
    page = admin_client.get(f"/admin/workflows/workflow/{workflow.pk}/change/").content.decode()

    top = page.index('class="wf-top"')
    assert (
        top
        < page.index('id="preview-panel"')
        < page.index('id="dag"')
        < page.index('id="definition"')
    )
    assert page.index('id="definition"') < page.index('class="submit-row"')
    # Its fields belong to a form of their own, outside the workflow's (forms do not nest).
    assert '<textarea name="payload" id="id_payload" form="preview-form"' in page
    assert re.search(r'<button[^>]+name="send_test"[^>]+form="preview-form"', page)
    preview_form = f'<form id="preview-form" method="post" action="/admin/workflows/workflow/{workflow.pk}/preview/">'
    assert preview_form in page
    assert page.index("</form>", page.index('id="definition"')) < page.index(preview_form)


def test_a_message_body_gets_a_box_of_useful_height(admin_client):
    workflow = WorkflowFactory(definition=chain(email_node("hello")))
    page = admin_client.get(f"/admin/workflows/workflow/{workflow.pk}/change/").content.decode()

    assert re.search(r'<textarea name="nodes-0-body" cols="40" rows="6"', page)


def test_raw_json_edit_goes_through_the_validator(admin_client):
    workflow = WorkflowFactory(definition=chain(email_node("hello")))
    url = f"/admin/workflows/workflow/{workflow.pk}/definition/"
    assert json.loads(admin_client.get(url).context["form"].initial["definition"]) == (
        workflow.definition
    )

    bad = {**workflow.definition, "entry_node_id": "nobody"}
    response = admin_client.post(url, {"definition": json.dumps(bad)})
    assert response.status_code == 200
    assert (
        "entry_node_id: node 'nobody' does not exist"
        in response.context["form"].errors["definition"]
    )
    workflow.refresh_from_db()
    assert workflow.version == 1

    good = chain(email_node("hello"), sms_node("text"))
    assert admin_client.post(url, {"definition": json.dumps(good)}).status_code == 302
    workflow.refresh_from_db()
    assert workflow.version == 2 and workflow.definition["nodes"][1]["id"] == "text"


def test_preview_renders_every_template_and_names_a_missing_variable(admin_client):
    workflow = WorkflowFactory(
        definition=chain(
            email_node("hello", html="<p>{{ payload.name }}</p>"),
            sms_node("text", body="Mail {{ vars.email_hello.message_id }}"),
        )
    )
    url = f"/admin/workflows/workflow/{workflow.pk}/preview/"
    payload = {"email": "ann@example.com", "name": "Ann", "phone": "+1555"}
    preview = admin_client.post(url, {"payload": json.dumps(payload)}).context["preview"]

    hello, text = preview.nodes
    assert hello.value("subject") == "Hello Ann" and hello.value("html") == "<p>Ann</p>"
    assert text.value("body") == "Mail <preview.hello@notiflow.local>"
    assert preview.route == ["hello", "text"] and preview.ok

    broken = admin_client.post(url, {"payload": json.dumps({"email": "a@example.com"})})
    assert broken.context["preview"].nodes[0].fields[1].error == "payload.name is undefined"
    assert "Render error: payload.name is undefined" in broken.content.decode()

    # The engine's recipient checks too: this run would fail, so the preview says so.
    nobody = {**payload, "email": "nobody"}
    page = admin_client.post(url, {"payload": json.dumps(nobody)})
    assert not page.context["preview"].ok
    assert (
        "A run fails here: node &#x27;hello&#x27;: &#x27;nobody&#x27; is not an email address"
        in (page.content.decode())
    )


def test_version_diff_names_what_changed(admin_client):
    workflow = WorkflowFactory(definition=chain(email_node("hello"), sms_node("text")))
    admin_client.post(
        f"/admin/workflows/workflow/{workflow.pk}/change/",
        change_post(admin_client, workflow, **{"nodes-1-body": "New body"}),
    )
    response = admin_client.get(f"/admin/workflows/workflow/{workflow.pk}/versions/diff/?a=1&b=2")

    assert response.context["diff"].summary == ["node text changed: body"]
    page = response.content.decode()
    assert '<span class="add">+' in page and "New body" in page
    assert '<span class="remove">-' in page


def test_key_cannot_be_changed_once_created(admin_client):
    workflow = WorkflowFactory()
    admin_client.post(
        f"/admin/workflows/workflow/{workflow.pk}/change/",
        change_post(admin_client, workflow, key="renamed"),
    )
    workflow.refresh_from_db()
    assert workflow.key != "renamed"


def test_import_page_creates_and_reports_invalid_documents(admin_client):
    document = {"key": "wf-imported", "name": "Imported", **chain(email_node("hello"))}
    bad = {"key": "wf-bad", "name": "Bad", "entry_node_id": "x", "nodes": []}
    url = "/admin/workflows/workflow/import/"

    response = admin_client.post(url, {"document": json.dumps([document, bad])})
    assert response.status_code == 200
    assert "wf-bad: nodes: must be a non-empty list of nodes" in response.content.decode()
    assert not Workflow.objects.filter(key="wf-imported").exists()

    assert admin_client.post(url, {"document": json.dumps(document)}).status_code == 302
    assert Workflow.objects.get(key="wf-imported").version == 1


def test_a_workflow_that_never_ran_can_be_deleted_with_its_versions(admin_client):
    workflow = WorkflowFactory()
    url = f"/admin/workflows/workflow/{workflow.pk}/delete/"

    assert admin_client.post(url, {"post": "yes"}).status_code == 302
    assert not Workflow.objects.filter(pk=workflow.pk).exists()


def test_the_operator_sets_queue_and_priority_on_the_form(admin_client):
    key = f"billing-{unique()}.invoice"
    response = admin_client.post(ADD_URL, three_node_post(key, queue="", priority="8"))
    assert response.status_code == 302, response.content[:2000]
    workflow = Workflow.objects.get(key=key)
    assert (workflow.queue, workflow.priority) == (key.split(".")[0], 8)  # empty: the key's
    response = admin_client.post(
        f"/admin/workflows/workflow/{workflow.pk}/change/",
        change_post(admin_client, workflow, queue="urgent", priority="9"),
    )
    assert response.status_code == 302
    workflow.refresh_from_db()
    assert (workflow.queue, workflow.priority, workflow.version) == ("urgent", 9, 1)


def test_the_operator_sets_the_preference_category_and_required_and_an_unknown_one_is_refused(
    admin_client,
):
    Category.objects.create(slug="billing")
    key = unique("receipts")
    made = admin_client.post(
        ADD_URL, three_node_post(key, preference_category="billing", required="on")
    )
    assert made.status_code == 302, made.content[:2000]
    workflow = Workflow.objects.get(key=key)
    assert (workflow.definition["preference_category"], workflow.definition["required"]) == (
        "billing",
        True,
    )
    form = (
        admin_client.get(f"/admin/workflows/workflow/{workflow.pk}/change/")
        .context["adminform"]
        .form
    )
    assert (form.initial["preference_category"], form.initial["required"]) == ("billing", True)

    unknown = admin_client.post(
        f"/admin/workflows/workflow/{workflow.pk}/change/",
        change_post(admin_client, workflow, preference_category="biling", required="on"),
    )

    assert unknown.status_code == 200
    assert "unknown category &#x27;biling&#x27;" in unknown.content.decode()
    workflow.refresh_from_db()
    assert workflow.version == 1

"""Authoring mistakes that used to save and then wait or fail at run time (issue 44): each is a
400 at save naming the node and field, works in templates as in conditions, or is a warning in
the create/update answer."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest
from django.test import override_settings

from tests.conftest import unique
from tests.factories import chain, email_node, sms_node
from tests.registry.support import registered
from tests.waits.test_wait_event import step
from tests.workers.helpers import due_trigger
from workflows.preview import workflow_preview

pytestmark = pytest.mark.django_db


def message_wait(message: str = "welcome", event: str = "message.opened") -> dict:
    return {
        "id": "opened",
        "type": "wait_event",
        "message": message,
        "event": event,
        "timeout": "1h",
    }


def body(definition: dict, **fields) -> dict:
    return {"key": unique("wf"), "name": "Authoring", **definition, **fields}


def refused(api_client, definition: dict) -> list[dict]:
    response = api_client.post("/api/workflows/", body(definition), format="json")
    assert response.status_code == 400, response.json()
    return response.json()["errors"]


def test_a_message_wait_naming_no_earlier_send_step_is_refused_at_save_with_did_you_mean(
    api_client,
):
    errors = refused(api_client, chain(email_node("welcome"), message_wait("welcom")))
    assert errors == [
        {
            "field": "nodes[1].message",
            "node": "opened",
            "message": "'welcom' is not an earlier send step; did you mean 'welcome'?",
        }
    ]


def test_a_message_wait_naming_a_send_step_that_comes_after_it_is_refused(api_client):
    errors = refused(api_client, chain(message_wait("later"), email_node("later")))
    assert errors == [
        {
            "field": "nodes[0].message",
            "node": "opened",
            "message": "'later' is not an earlier send step: none comes before",
        }
    ]


def test_a_message_wait_may_name_an_earlier_inapp_step(api_client):
    bell = {"id": "bell", "type": "inapp", "title": "Hi", "body": "Ready"}
    response = api_client.post(
        "/api/workflows/", body(chain(bell, message_wait("bell"))), format="json"
    )
    assert response.status_code == 201, response.json()


def test_a_misspelled_message_state_is_refused_at_save_with_did_you_mean(api_client):
    errors = refused(api_client, chain(email_node("welcome"), message_wait(event="message.opend")))
    assert errors == [
        {
            "field": "nodes[1].event",
            "node": "opened",
            "message": "'message.opend' is not a message state; did you mean 'message.opened'?",
        }
    ]


def test_an_unknown_liquid_filter_is_refused_at_save_naming_node_field_and_filter(api_client):
    errors = refused(api_client, chain(email_node(subject="Hi {{ payload.name | upcse }}")))
    assert errors == [
        {
            "field": "nodes[0].subject",
            "node": "email",
            "message": "template: unknown filter 'upcse'; did you mean 'upcase'?",
        }
    ]


def test_an_unknown_filter_in_a_wait_match_is_refused_at_save(api_client):
    wait = {
        "id": "paid",
        "type": "wait_event",
        "event": "order.paid",
        "match": {"order": "{{ payload.order | frobnicate }}"},
        "timeout": "1h",
    }
    (error,) = refused(api_client, chain(wait))
    assert (error["field"], error["node"]) == ("nodes[0].match", "paid")
    assert "unknown filter 'frobnicate'" in error["message"]


def test_the_project_filters_are_known_at_save(api_client):
    node = email_node(body="{{ payload | json | raw }} {{ payload.tags | uniq | join: ',' }}")
    response = api_client.post("/api/workflows/", body(chain(node)), format="json")
    assert response.status_code == 201, response.json()


FOLLOW_UP = email_node("follow", subject="Your welcome was {{ steps.welcome.delivery }}")


def test_a_template_reads_steps_in_the_preview_as_a_condition_does():
    preview = workflow_preview(
        definition=chain(email_node("welcome"), FOLLOW_UP),
        payload={"email": "ada@example.com", "name": "Ada"},
        workflow={"key": "w", "name": "w", "version": 1},
        now=datetime(2026, 1, 5, tzinfo=UTC),
    )
    assert preview.ok, preview
    assert preview.nodes[1].value("subject") == "Your welcome was sent"


@override_settings(EMAIL_BACKEND="django.core.mail.backends.locmem.EmailBackend")
def test_a_template_reads_steps_in_a_run_as_a_condition_does():
    from django.core import mail

    payload = {"email": "ada@example.com", "name": "Ada"}
    trigger = step(due_trigger(chain(email_node("welcome"), FOLLOW_UP), payload=payload))
    trigger = step(trigger)
    assert trigger.status == "completed", trigger.last_error
    assert [m.subject for m in mail.outbox][-1] == "Your welcome was sent"


def warnings_of(response) -> list[str]:
    assert response.status_code in (200, 201), response.json()
    return response.json()["warnings"]


def test_saving_a_workflow_whose_queue_no_live_worker_serves_warns_with_the_command(api_client):
    created = api_client.post(
        "/api/workflows/", body(chain(email_node()), queue="lonely"), format="json"
    )
    expected = (
        "no live worker serves queue 'lonely': its runs wait until one does; start one with: "
        "celery -A notiflow worker -Q lonely -n lonely@%h"
    )
    assert warnings_of(created) == [expected]
    key = created.json()["key"]
    with override_settings(NOTIFLOW_TRIGGER_REQUIRES_WORKER=True):
        patched = api_client.patch(f"/api/workflows/{key}/", {"name": "Renamed"}, format="json")
    assert warnings_of(patched) == [
        expected.replace("its runs wait", "its triggers are refused (503)")
    ]


def test_saving_a_workflow_whose_queue_a_live_worker_serves_has_no_warning(api_client):
    registered(unique("w") + "@h", queues=("served",))
    created = api_client.post(
        "/api/workflows/", body(chain(email_node()), queue="served"), format="json"
    )
    assert warnings_of(created) == []
    key = created.json()["key"]
    replaced = api_client.put(
        f"/api/workflows/{key}/", body(chain(sms_node()), queue="served", key=key), format="json"
    )
    assert warnings_of(replaced) == []


def test_a_template_linking_preferences_url_warns_while_the_public_url_is_not_set(api_client):
    registered(unique("w") + "@h", queues=("default",))
    definition = chain(email_node("mail", body="Manage: {{ preferences_url }}"))
    with override_settings(NOTIFLOW_PUBLIC_URL=""):
        unset = api_client.post("/api/workflows/", body(definition), format="json")
    assert warnings_of(unset) == [
        "node 'mail' uses {{ preferences_url }} but NOTIFLOW_PUBLIC_URL (the service's public "
        "address) is not set: its runs will fail at that node"
    ]
    with override_settings(NOTIFLOW_PUBLIC_URL="https://notify.example.com"):
        set_ = api_client.post("/api/workflows/", body(definition), format="json")
    assert warnings_of(set_) == []


def test_the_schema_documents_the_warnings_of_the_create_and_update_answers(api_client):
    schema = api_client.get("/api/schema/?format=json").json()
    saved = schema["components"]["schemas"]["WorkflowSaved"]
    assert saved["properties"]["warnings"]["type"] == "array"
    assert "warnings" in saved["required"]
    operations = schema["paths"]["/api/workflows/{key}/"]
    for method in ("put", "patch"):
        answer = operations[method]["responses"]["200"]["content"]["application/json"]["schema"]
        assert answer == {"$ref": "#/components/schemas/WorkflowSaved"}
    created = schema["paths"]["/api/workflows/"]["post"]["responses"]["201"]
    assert created["content"]["application/json"]["schema"]["$ref"].endswith("/WorkflowSaved")
    # A read shows the workflow alone.
    assert "warnings" not in schema["components"]["schemas"]["WorkflowOutput"]["properties"]


def test_the_admin_shows_the_save_warnings_as_messages(admin_client):
    from tests.workflows.test_admin_authoring import ADD_URL, three_node_post

    response = admin_client.post(
        ADD_URL, three_node_post(unique("wf"), queue="nobody"), follow=True
    )
    assert response.status_code == 200
    shown = [str(m) for m in response.context["messages"]]
    assert any(m.startswith("no live worker serves queue 'nobody'") for m in shown), shown


def test_the_admin_match_box_of_a_wait_without_match_is_empty_not_null(admin_client):
    from tests.factories import WorkflowFactory

    wait = {"id": "paid", "type": "wait_event", "event": "order.paid", "timeout": "1h"}
    workflow = WorkflowFactory(definition=chain(wait))
    page = admin_client.get(f"/admin/workflows/workflow/{workflow.pk}/change/").content.decode()
    (box,) = re.findall(r'<textarea name="nodes-0-match"[^>]*>(.*?)</textarea>', page, re.S)
    assert box.strip() == ""

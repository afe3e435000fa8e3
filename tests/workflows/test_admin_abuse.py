"""Issue 31 in the admin: deeply nested JSON is a form error as in the API (common/http.py's
depth check, one home), and previews cannot take a web process's threads (docs/security/findings.md)."""

from __future__ import annotations

import json
import threading
import time

import pytest
from django.test import override_settings

from tests.factories import WorkflowFactory, chain, email_node
from workflows import preview as preview_module
from workflows.preview import PreviewBusy, workflow_preview

pytestmark = pytest.mark.django_db

DEEP = "[" * 5000 + "]" * 5000
TOO_DEEP_FOR_THE_API = "[" * 65 + "]" * 65


@pytest.mark.parametrize("document", [DEEP, TOO_DEEP_FOR_THE_API], ids=["5000", "65"])
@pytest.mark.parametrize("form", ["preview", "definition", "import"])
def test_deeply_nested_json_is_a_form_error_in_every_admin_form(admin_client, form, document):
    workflow = WorkflowFactory(definition=chain(email_node("hello")))
    url, field = {
        "preview": (f"/admin/workflows/workflow/{workflow.pk}/preview/", "payload"),
        "definition": (f"/admin/workflows/workflow/{workflow.pk}/definition/", "definition"),
        "import": ("/admin/workflows/workflow/import/", "document"),
    }[form]
    body = document if form != "preview" else '{"a": ' + document + "}"

    response = admin_client.post(url, {field: body})

    assert response.status_code == 200
    assert "more than 64 levels deep" in response.content.decode()


def test_deeply_nested_json_is_not_sent_by_the_send_test_button(admin_client):
    workflow = WorkflowFactory(definition=chain(email_node("hello")))
    url = f"/admin/triggers/triggerinstance/send-test/{workflow.pk}/"
    response = admin_client.post(url, {"payload": '{"a": ' + DEEP + "}"}, follow=True)
    assert response.status_code == 200
    assert "Not sent: Not valid JSON: JSON may not nest" in response.content.decode()


def busy_preview(body: str) -> dict:
    return {
        "definition": chain(email_node("mail", to="a@example.com", body=body)),
        "payload": {"name": "Ann"},
        "workflow": {"key": "k", "name": "K", "version": 1},
    }


@override_settings(NOTIFLOW_PREVIEW_CONCURRENCY=1)
def test_a_preview_over_the_processs_cap_is_told_to_try_again_at_once(monkeypatch):
    started, release = threading.Event(), threading.Event()
    original = preview_module._workflow_preview

    def held(*args):
        started.set()
        release.wait(10)
        return original(*args)

    monkeypatch.setattr(preview_module, "_workflow_preview", held)
    first = threading.Thread(target=lambda: workflow_preview(**busy_preview("{{ payload.name }}")))
    first.start()
    try:
        assert started.wait(5)
        clock = time.monotonic()
        with pytest.raises(PreviewBusy, match="busy, try again"):
            workflow_preview(**busy_preview("{{ payload.name }}"))
        assert time.monotonic() - clock < 0.5  # refused at once, not queued behind the first
    finally:
        release.set()
        first.join(10)
    monkeypatch.setattr(preview_module, "_workflow_preview", original)
    assert workflow_preview(**busy_preview("{{ payload.name }}")).ok  # the slot came back


@override_settings(NOTIFLOW_PREVIEW_CONCURRENCY=0)
def test_the_admin_preview_says_busy_with_a_503_instead_of_hanging(admin_client):
    workflow = WorkflowFactory(definition=chain(email_node("hello")))
    url = f"/admin/workflows/workflow/{workflow.pk}/preview/"
    response = admin_client.post(url, {"payload": json.dumps({"name": "A"})})
    assert response.status_code == 503 and response["Retry-After"] == "5"
    assert "busy, try again" in response.content.decode()


@override_settings(NOTIFLOW_TEMPLATE_MAX_ITERATIONS=10_000)
def test_a_whole_preview_renders_within_one_nodes_budget():
    # Four fields of 3,000 iterations each: within a field's budget, not within the preview's.
    loop = "{% for i in (1..3000) %}{% endfor %}x"
    nodes = [email_node(f"m{i}", to="a@example.com", subject=loop, body=loop) for i in range(2)]
    result = workflow_preview(
        definition=chain(*nodes), payload={"name": "A"}, workflow={"key": "k"}
    )
    assert not result.ok
    assert "NOTIFLOW_TEMPLATE_MAX_ITERATIONS" in result.nodes[1].error

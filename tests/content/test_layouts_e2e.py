"""Layouts and partials end to end (docs/layouts.md): a layout and a partial PUT over the live
API, a workflow whose email is sent in it: the stack's worker sends the HTML part in the layout,
the text part in its text; a change of the partial reaches the worker within a second, and the
step log names the versions each email was rendered with."""

from __future__ import annotations

import time
from typing import Any

import pytest

from tests.conftest import unique
from tests.workers.helpers import wait_terminal
from workers.models import StepExecutionLog

pytestmark = pytest.mark.e2e


def put(api: Any, path: str, body: dict[str, Any]) -> Any:
    return api.session.put(api.base + path, json=body, timeout=10)


@pytest.fixture
def brand(api):
    """A layout and its footer partial of this test's own (keys unique: what it commits stays)."""
    layout, footer = unique("brand"), unique("footer")
    assert put(api, f"/api/partials/{footer}/", {"content": "<i>v1</i>"}).status_code == 201
    html = f'<main>{{{{ content }}}}{{% render "{footer}" %}}</main>'
    body = {"name": "Brand", "html": html, "text": "{{ content }}\n--\nExample"}
    assert put(api, f"/api/layouts/{layout}/", body).status_code == 201
    yield layout, footer
    api.delete(f"/api/layouts/{layout}/")
    api.delete(f"/api/partials/{footer}/")


def send(api: Any, workflow: str, address: str) -> str:
    response = api.post(
        "/api/triggers/",
        {"workflow": workflow, "idempotency_key": unique("k"), "payload": {"email": address}},
    )
    assert response.status_code == 201, response.text
    return str(response.json()["id"])


def html_of(mail: Any) -> str:
    part = mail.message.get_body(("html",))
    return str(part.get_content()).replace("\r\n", "\n")  # SMTP's line ends


def test_an_email_in_its_layout_on_a_real_worker_and_a_change_within_a_second(
    api, brand, smtp_server
):
    layout, footer = brand
    workflow = unique("laid-out")
    created = api.post(
        "/api/workflows/",
        {
            "key": workflow,
            "name": "Laid out",
            "default_layout": layout,
            "nodes": [
                {
                    "id": "mail",
                    "type": "email",
                    "to": "{{ payload.email }}",
                    "subject": "Hi",
                    "body": "Line one\nline <two>",
                }
            ],
        },
    )
    assert created.status_code == 201, created.text

    address = f"lay-{unique()}@example.com"
    trigger = wait_terminal(send(api, workflow, address))
    assert trigger.status == "completed", trigger.last_error
    (mail,) = smtp_server.handler.to(address)
    assert mail.body.replace("\r\n", "\n").strip() == "Line one\nline <two>\n--\nExample"
    assert html_of(mail).strip() == "<main>Line one<br>\nline &lt;two&gt;<i>v1</i></main>"
    log = StepExecutionLog.objects.get(trigger_id=trigger.pk)
    assert log.input["content"] == {"layouts": {layout: 1}, "partials": {footer: 1}}

    # A change of the partial reaches the worker's cache within a second of its commit.
    assert put(api, f"/api/partials/{footer}/", {"content": "<i>v2</i>"}).status_code == 200
    time.sleep(1.0)
    address = f"lay-{unique()}@example.com"
    trigger = wait_terminal(send(api, workflow, address))
    assert trigger.status == "completed", trigger.last_error
    (mail,) = smtp_server.handler.to(address)
    assert "<i>v2</i></main>" in html_of(mail)
    log = StepExecutionLog.objects.get(trigger_id=trigger.pk)
    assert log.input["content"]["partials"] == {footer: 2}

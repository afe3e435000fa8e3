"""The timing and flow-control nodes through every authoring path: the one validator (errors name
the field), the admin's rows (no JSON), the preview, the DAG picture, export and import."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from tests.factories import (
    WorkflowFactory,
    chain,
    digest_node,
    email_node,
    throttle_node,
    window_node,
)
from tests.workflows.test_admin_authoring import ADD_URL, change_post, management
from workflows.diagram import workflow_diagram_svg
from workflows.models import Workflow
from workflows.preview import sample_payload, workflow_preview
from workflows.selectors import workflow_export
from workflows.services import workflow_import
from workflows.validation import workflow_validate

UNTIL = {"id": "later", "type": "delay", "until": "{{ payload.remind_at }}"}
WINDOW = window_node("hours")
THROTTLE = throttle_node("cap")
DIGEST = digest_node("batch")
MAIL = email_node(
    "mail",
    subject="{{ vars.digest_batch.count }} updates",
    body="{% for e in vars.digest_batch.events %}{{ e.item }} {% endfor %}",
)


def everything():
    return chain(UNTIL, WINDOW, THROTTLE, DIGEST, MAIL)


def errors(*nodes) -> dict[str, str]:
    return {e.field: e.message for e in workflow_validate(chain(*nodes, email_node("mail")))}


def test_a_workflow_with_every_new_node_type_is_valid():
    assert workflow_validate(everything()) == []


@pytest.mark.parametrize(
    ("node", "field", "message"),
    [
        ({**UNTIL, "duration": "5m"}, "nodes[0].until", "not both"),
        ({**UNTIL, "until": "{{ payload.at "}, "nodes[0].until", "template"),
        ({**WINDOW, "start": "9am"}, "nodes[0].start", "'9am' is not a time of day"),
        ({**WINDOW, "end": "09:00"}, "nodes[0].end", "must differ from start"),
        ({**WINDOW, "days": ["monday"]}, "nodes[0].days", "distinct days from mon"),
        ({**WINDOW, "days": []}, "nodes[0].days", "non-empty"),
        ({**WINDOW, "timezone": "Europe/Berlim"}, "nodes[0].timezone", "not an IANA time zone"),
        ({k: v for k, v in WINDOW.items() if k != "start"}, "nodes[0].start", "is required"),
        ({**THROTTLE, "limit": 0}, "nodes[0].limit", "whole number from 1"),
        ({**THROTTLE, "limit": "3"}, "nodes[0].limit", "whole number from 1"),
        ({**THROTTLE, "window": "forever"}, "nodes[0].window", "is not a duration"),
        ({**THROTTLE, "window": "400d"}, "nodes[0].window", "from 1 second to 365 days"),
        ({**DIGEST, "window": "0s"}, "nodes[0].window", "from 1 second to 365 days"),
        ({**DIGEST, "limit": 3}, "nodes[0].limit", "is not a field of digest nodes"),
    ],
)
def test_each_mistake_is_named_by_its_field(node, field, message):
    found = errors(node)
    assert field in found and message in found[field], found


def test_a_zone_from_a_template_is_checked_when_it_renders_not_at_save():
    assert errors({**WINDOW, "timezone": "{{ payload.tz }}"}) == {}
    assert errors({k: v for k, v in WINDOW.items() if k not in ("timezone", "days")}) == {}


@pytest.mark.django_db
def test_the_admin_authors_each_new_node_type_without_json(admin_client):
    rows = {
        "nodes-0-id": "later",
        "nodes-0-type": "delay",
        "nodes-0-until": " {{ payload.remind_at }} ",
        "nodes-1-id": "hours",
        "nodes-1-type": "window",
        "nodes-1-timezone": "{{ payload.tz }}",
        "nodes-1-start": "09:00",
        "nodes-1-end": "18:00",
        "nodes-1-days": ["mon", "tue", "wed", "thu", "fri"],
        "nodes-2-id": "cap",
        "nodes-2-type": "throttle",
        "nodes-2-key": "{{ payload.user }}",
        "nodes-2-limit": "3",
        "nodes-2-window": "1h",
        "nodes-3-id": "batch",
        "nodes-3-type": "digest",
        "nodes-3-key": "{{ payload.user }}",
        "nodes-3-window": "10m",
        "nodes-4-id": "mail",
        "nodes-4-type": "email",
        "nodes-4-to": MAIL["to"],
        "nodes-4-subject": MAIL["subject"],
        "nodes-4-body": MAIL["body"],
    }
    edges: dict[str, str] = {}
    for index, (source, target) in enumerate(
        [("later", "hours"), ("hours", "cap"), ("cap", "batch"), ("batch", "mail")]
    ):
        edges |= {f"edges-{index}-source": source, f"edges-{index}-target": target}
    data = {
        "key": "wf-flow",
        "name": "Flow",
        "priority": "5",
        "active": "on",
        "entry_node_id": "later",
        **management("nodes", 5),
        **rows,
        **management("edges", 4),
        **edges,
        "_save": "Save",
    }
    response = admin_client.post(ADD_URL, data)
    assert response.status_code == 302, response.content.decode()[:3000]
    workflow = Workflow.objects.get(key="wf-flow")
    assert workflow.definition["nodes"] == [UNTIL, WINDOW, THROTTLE, DIGEST, MAIL]

    # The change page shows each node's own fields, filled in; saving it unchanged keeps the
    # version (every day ticked stays "every day": no `days`).
    page = admin_client.get(f"/admin/workflows/workflow/{workflow.pk}/change/")
    html = page.content.decode()
    for text in (
        'data-types="window"',
        'value="09:00"',
        'value="1h"',
        'value="{{ payload.user }}"',
    ):
        assert text in html, text
    response = admin_client.post(
        f"/admin/workflows/workflow/{workflow.pk}/change/", change_post(admin_client, workflow)
    )
    assert response.status_code == 302
    workflow.refresh_from_db()
    assert workflow.version == 1


@pytest.mark.django_db
def test_the_admin_puts_a_flow_node_error_on_its_field(admin_client):
    data = {
        "key": "wf-flow-bad",
        "name": "Bad",
        "priority": "5",
        "entry_node_id": "cap",
        **management("nodes", 2),
        "nodes-0-id": "cap",
        "nodes-0-type": "throttle",
        "nodes-0-key": "{{ payload.user }}",
        "nodes-0-window": "soon",
        "nodes-1-id": "hours",
        "nodes-1-type": "window",
        "nodes-1-start": "25:00",
        "nodes-1-end": "18:00",
        **management("edges", 1),
        "edges-0-source": "cap",
        "edges-0-target": "hours",
        "_save": "Save",
    }
    response = admin_client.post(ADD_URL, data)
    assert response.status_code == 200
    nodes = response.context["adminform"].form.nodes.forms
    assert "is required" in str(nodes[0].errors["limit"])
    assert "is not a duration" in str(nodes[0].errors["window"])
    assert "is not a time of day" in str(nodes[1].errors["start"])
    assert not Workflow.objects.filter(key="wf-flow-bad").exists()


def test_the_preview_shows_what_each_node_does_with_the_sample_payload():
    payload = {
        "remind_at": "2026-03-30T09:00:00+02:00",
        "tz": "Europe/Berlin",
        "user": "u1",
        "email": "a@example.com",
        "item": "x",
    }
    friday = datetime(2026, 3, 27, 19, 0, tzinfo=UTC)
    preview = workflow_preview(
        definition=everything(), payload=payload, workflow={"key": "w"}, now=friday
    )
    later, hours, cap, batch, mail = preview.nodes
    assert later.note == "waits 2d 12h, until 2026-03-30 07:00 UTC"
    # Each node is previewed at `now` (a Friday evening): the window opens on Monday morning,
    # shown in its own zone.
    assert hours.note == "waits 2d 12h, until 2026-03-30 09:00 +02:00"
    assert cap.value("key") == "u1" and "3 run(s)" in cap.note
    assert batch.value("key") == "u1"
    assert mail.value("subject") == "1 updates" and mail.value("body") == "x "
    assert preview.ok and preview.route == ["later", "hours", "cap", "batch", "mail"]

    broken = workflow_preview(
        definition=everything(), payload={**payload, "tz": "Nowhere"}, workflow={}, now=friday
    )
    assert "'Nowhere' is not an IANA time zone" in broken.nodes[1].error and not broken.ok
    sample = sample_payload(everything(), now=friday)
    assert sample["tz"] == "Europe/Berlin" and sample["remind_at"] == "2026-03-28T19:00:00+00:00"
    sampled = workflow_preview(definition=everything(), payload=sample, workflow={}, now=friday)
    assert [node.error for node in sampled.nodes[:4]] == ["", "", "", ""]


def test_the_picture_says_what_each_node_does():
    svg = workflow_diagram_svg(everything())
    for text in (
        "delay · until {{ payload.remind_at }}",
        "window · mon-fri 09:00-18:00",
        "throttle · 3 per 1h",
        "digest · 10m by {{ payload.user }}",
    ):
        assert text in svg, text


@pytest.mark.django_db
def test_export_and_import_carry_the_new_nodes_unchanged():
    workflow = WorkflowFactory(definition=everything())
    document = workflow_export(workflow=workflow)
    Workflow.objects.filter(pk=workflow.pk).delete()
    (created,) = workflow_import(documents=[document], actor="test")
    assert created.action == "created"
    assert Workflow.objects.get(key=workflow.key).definition == everything()

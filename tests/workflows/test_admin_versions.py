"""A workflow's versions in the admin: the version page and the difference between two."""

from __future__ import annotations

import json
import re
from html import unescape

import pytest
from django.test import Client

from tests.factories import WorkflowFactory

pytestmark = pytest.mark.django_db


def version_page(client: Client, workflow, number: int = 1) -> str:
    version = workflow.versions.get(number=number)
    response = client.get(f"/admin/workflows/workflowversion/{version.pk}/change/")
    assert response.status_code == 200
    return response.content.decode()


def test_version_page_shows_the_definition_as_indented_json(admin_client):
    workflow = WorkflowFactory()
    html = version_page(admin_client, workflow)

    blocks = re.findall(
        r'<details class="json-block" open><summary>.*?<pre>(.*?)</pre>', html, re.S
    )
    assert [json.loads(unescape(text)) for text in blocks] == [workflow.definition]
    assert unescape(blocks[0]).startswith('{\n  "')  # indented, not one line


def with_second_version(**overrides):
    from workflows.services import workflow_update

    workflow = WorkflowFactory(**overrides)
    definition = json.loads(json.dumps(workflow.definition))
    definition["nodes"][0]["subject"] = "Changed {{ payload.name }}"
    return workflow_update(workflow=workflow, definition=definition, actor="editor")


def test_version_page_is_titled_by_workflow_key_and_number_not_database_id(admin_client):
    workflow = with_second_version(key="welcome-back")
    html = version_page(admin_client, workflow, number=2)

    assert "<h1>welcome-back — version 2</h1>" in html
    assert "<title>welcome-back — version 2 | Notiflow admin</title>" in html
    assert re.search(r"&rsaquo; version 2\s*</div>", html)  # the breadcrumb's last step
    assert f"{workflow.pk} v2" not in html
    diff_url = f"/admin/workflows/workflow/{workflow.pk}/versions/diff/?a=1&amp;b=2"
    assert f'href="{diff_url}">Changes from version 1</a>' in html


def test_version_history_is_titled_by_workflow_key(admin_client):
    workflow = WorkflowFactory(key="welcome-hist")
    version = workflow.versions.get(number=1)
    html = admin_client.get(f"/admin/workflows/workflowversion/{version.pk}/history/")

    assert "<h1>Change history: welcome-hist — version 1</h1>" in html.content.decode()


def test_diff_header_names_both_versions_with_author_and_time_in_full(admin_client):
    workflow = with_second_version()
    old, new = workflow.versions.get(number=1), workflow.versions.get(number=2)
    html = admin_client.get(
        f"/admin/workflows/workflow/{workflow.pk}/versions/diff/", {"a": 1, "b": 2}
    ).content.decode()

    start = html.index('id="diff-versions"')
    header = html[start : html.index("</table>", start)]
    rows = [
        [
            unescape(re.sub(r"<[^>]+>", "", cell)).strip()
            for cell in re.findall(r"<t[hd]>(.*?)</t[hd]>", row, re.S)
        ]
        for row in re.findall(r"<tr><th>(?:From|To)</th>.*?</tr>", header, re.S)
    ]
    at = "%Y-%m-%d %H:%M:%S"
    assert rows == [
        ["From", "version 1", "tests", old.created_at.strftime(at)],
        ["To", "version 2", "editor", new.created_at.strftime(at)],
    ]
    assert "p.m.." not in html

"""A workflow's versions in the admin: the version page and the difference between two."""

from __future__ import annotations

import json
import re
from html import unescape

import pytest
from django.contrib.auth.models import User
from django.test import Client

from tests.factories import WorkflowFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client() -> Client:
    client = Client()
    client.force_login(User.objects.create_superuser("operator", "op@example.com", "pw"))
    return client


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

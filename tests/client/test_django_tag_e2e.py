"""notiflow-client's Django integration in a client site that has Django and notiflow-client
and nothing of Notiflow's server (the issue: Notiflow's own tag failed there on its models and
on rest_framework). A settings module made here, rendered in a subprocess with a clean
environment; the token it renders reads the live stack's inbox, and it is the server's token."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import requests
from django.test import override_settings
from notiflow_client import Notiflow, inbox_token

from inbox.tokens import recipient_token
from tests.client.test_client_e2e import workflow_create
from tests.conftest import STACK_SETTINGS, unique
from tests.inbox.test_inapp_node import inapp_node

SECRET = STACK_SETTINGS["NOTIFLOW_INBOX_SECRET"]
SITE_SETTINGS = """
SECRET_KEY = "a-client-site-of-its-own"
INSTALLED_APPS = ["django.contrib.contenttypes", "django.contrib.auth", "notiflow_client.django"]
TEMPLATES = [{{"BACKEND": "django.template.backends.django.DjangoTemplates", "APP_DIRS": True}}]
NOTIFLOW_URL = {url!r}
NOTIFLOW_INBOX_SECRET = {secret!r}
"""
# Renders docs/guide/inbox.md's snippet; says which of Notiflow's server packages got imported (none may).
RENDER = """
import json, sys, django
django.setup()
from django.template import engines
source = "{% load notiflow_inbox %}{% notiflow_inbox who %}"
html = engines["django"].from_string(source).render({"who": sys.argv[1]})
server = {"common", "inbox", "recipients", "triggers", "notiflow", "rest_framework", "workflows"}
print(json.dumps({"html": html, "imported": sorted(m for m in sys.modules if m.split(".")[0] in server)}))
"""


def client_site_render(tmp_path: Path, recipient: str, url: str) -> dict:
    (tmp_path / "client_site.py").write_text(SITE_SETTINGS.format(url=url, secret=SECRET))
    run = subprocess.run(
        [sys.executable, "-c", RENDER, recipient],
        cwd=tmp_path,
        env={"PYTHONPATH": str(tmp_path), "DJANGO_SETTINGS_MODULE": "client_site"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


@pytest.mark.e2e
def test_a_client_site_renders_the_widget_whose_token_reads_the_live_inbox(e2e, tmp_path):
    person = unique("person")
    with Notiflow(e2e.base_url, e2e.env["API_KEY"]) as notiflow:
        workflow = workflow_create(notiflow, inapp_node())
        run = notiflow.trigger(
            workflow, payload={"name": "Ada", "amount": "3"}, recipient={"id": person}, wait=20
        )
    assert run.status == "completed"

    rendered = client_site_render(tmp_path, person, e2e.base_url + "/")
    assert rendered["imported"] == []
    html = rendered["html"]
    script = re.search(r'<script src="([^"]+)" defer></script>', html)
    token = re.search(r'<notiflow-inbox api="([^"]+)" recipient="([^"]+)" token="([^"]+)">', html)
    assert script and token and token[1] == e2e.base_url and token[2] == person
    assert token[3] == inbox_token(person, SECRET)

    widget = requests.get(script[1], timeout=10)
    assert widget.status_code == 200 and "notiflow-inbox" in widget.text
    counts = requests.get(
        f"{e2e.base_url}/api/inbox/counts/",
        headers={"Authorization": f"Recipient {person}:{token[3]}"},
        timeout=10,
    )
    assert counts.status_code == 200 and counts.json()["unread"] == 1


@pytest.mark.e2e
def test_after_a_rotate_the_client_computes_the_token_the_server_issues(e2e):
    person = unique("person")
    with Notiflow(e2e.base_url, e2e.env["API_KEY"]) as notiflow:
        notiflow.recipients.upsert(person)
        assert notiflow.recipients.inbox_token(person) == inbox_token(person, SECRET)
        rotated = notiflow.recipients.rotate_inbox_token(person)
    assert rotated == inbox_token(person, SECRET, generation=1)
    stale = requests.get(
        f"{e2e.base_url}/api/inbox/counts/",
        headers={"Authorization": f"Recipient {person}:{inbox_token(person, SECRET)}"},
        timeout=10,
    )
    assert stale.status_code == 401


@pytest.mark.parametrize("recipient", ["42", "user-42", "Zoë ✓", "a:b.c", "x" * 200])
@pytest.mark.parametrize("generation", [0, 1, 17, 123456789])
def test_the_clients_token_is_the_servers_for_the_same_inputs(recipient, generation):
    with override_settings(NOTIFLOW_INBOX_SECRET="s3cret-of-the-environment"):
        server = recipient_token(recipient, generation)
    assert inbox_token(recipient, "s3cret-of-the-environment", generation) == server

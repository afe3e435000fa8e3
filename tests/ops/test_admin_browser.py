"""The operator's path through the admin in a real browser (Debian's chromium, headless):
log in, author a three-node workflow in the inline rows, see its picture, preview, send a test,
and follow the run to completion with its step logs. Screenshots land in artifacts/screenshots/.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.contrib.auth.hashers import PBKDF2PasswordHasher
from django.contrib.auth.models import User
from django.db import connections

from tests.conftest import unique
from tests.support.stack import ROOT
from triggers.models import TriggerInstance
from workers.models import StepExecutionLog

pytestmark = pytest.mark.e2e

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SHOTS = ROOT / "artifacts" / "screenshots"


@pytest.fixture
def browser_page(monkeypatch):
    # Playwright's sync API keeps an event loop running in this thread; Django then refuses ORM
    # calls as "async". They are plain blocking calls in test code, so allow them here.
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    sync_api = pytest.importorskip("playwright.sync_api")
    if not CHROMIUM.exists():
        pytest.fail(
            "/usr/bin/chromium is missing: `make test` installs it (apt-get install chromium)"
        )
    SHOTS.mkdir(parents=True, exist_ok=True)
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.set_default_timeout(20_000)
        try:
            yield page
        finally:
            # ORM calls made while Playwright's loop runs get a connection of their own context;
            # close it here, or it outlives the test and blocks dropping the test database.
            connections.close_all()
            browser.close()


def shot(page, name: str) -> None:
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def test_operator_authors_previews_sends_and_follows_a_run(e2e, smtp_server, browser_page):
    from playwright.sync_api import expect

    page, base = browser_page, e2e.base_url
    username, password = unique("operator"), unique("pw")
    # Hashed with the production hasher: gunicorn runs notiflow.settings, not the tests' MD5.
    User.objects.create(
        username=username,
        password=PBKDF2PasswordHasher().encode(password, PBKDF2PasswordHasher().salt()),
        is_staff=True,
        is_superuser=True,
    )
    key, address = unique("wf-browser"), f"ok-{unique()}@example.com"

    page.goto(f"{base}/admin/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.click("input[type=submit]")
    expect(page.locator("#user-tools")).to_contain_text(username)
    # Whitenoise serves the admin's CSS under gunicorn: the header is styled.
    assert page.request.get(f"{base}/static/admin/css/base.css").status == 200
    header = page.eval_on_selector("#header", "e => getComputedStyle(e).backgroundColor")
    assert header not in ("rgba(0, 0, 0, 0)", "transparent")

    page.goto(f"{base}/admin/workflows/workflow/add/")
    page.fill("#id_key", key)
    page.fill("#id_name", "Browser welcome")
    page.fill("#id_nodes-0-id", "welcome")
    page.fill("#id_nodes-0-to", "{{ payload.email }}")
    page.fill("#id_nodes-0-subject", "Welcome {{ payload.name }}")
    page.fill("#id_nodes-0-body", "Hello {{ payload.name }}, from {{ workflow.key }}")
    page.fill("#id_nodes-1-id", "pause")
    page.select_option("#id_nodes-1-type", "delay")
    expect(page.locator("#id_nodes-1-subject")).to_be_hidden()  # only a delay's fields show
    page.fill("#id_nodes-1-delay_amount", "1")
    page.select_option("#id_nodes-1-delay_unit", "s")
    page.fill("#id_nodes-2-id", "text")
    page.select_option("#id_nodes-2-type", "sms")
    page.fill("#id_nodes-2-to", "{{ payload.phone }}")
    page.fill("#id_nodes-2-body", "Sent {{ vars.email_welcome.message_id }}")
    page.click("button[data-add=nodes]")  # an extra row, left empty: ignored on save
    expect(page.locator("#id_nodes-3-id")).to_be_visible()
    page.select_option("#id_entry_node_id", "welcome")
    page.select_option("#id_edges-0-source", "welcome")
    page.select_option("#id_edges-0-target", "pause")
    page.select_option("#id_edges-1-source", "pause")
    page.select_option("#id_edges-1-target", "text")
    page.fill("#id_edges-1-when", "payload.phone != empty")
    shot(page, "1-add-workflow")
    page.click("input[name=_continue]")

    expect(page.locator(".messagelist .success")).to_contain_text("was added successfully")
    picture = page.locator("#dag svg.workflow-dag")
    expect(picture).to_be_visible()
    expect(picture.locator("g.dag-node")).to_have_count(3)
    expect(picture.locator("path.dag-edge")).to_have_count(2)
    expect(picture).to_contain_text("payload.phone != empty")
    shot(page, "2-workflow-page")

    payload = f'{{"email": "{address}", "name": "Ada", "phone": "+15550100"}}'
    page.fill("#id_payload", payload)
    page.click("button[name=preview]")
    card = page.locator('.preview-card[data-node-id="welcome"]')
    expect(card.locator(".rendered-subject")).to_have_text("Welcome Ada")
    expect(page.locator('.preview-card[data-node-id="text"] .rendered-body')).to_have_text(
        "Sent <preview.welcome@notiflow.local>"
    )
    expect(page.locator(".route")).to_contain_text("welcome → pause → text")
    shot(page, "3-preview")

    page.click("button[name=send_test]")
    expect(page.locator(".messagelist .success")).to_contain_text("Test run")
    run_url = re.search(r"/triggerinstance/([0-9a-f-]{36})/change/", page.url)
    assert run_url is not None, page.url
    trigger_id = run_url.group(1)
    shot(page, "4-run-started")
    # The page reloads itself every 2 s while the run is live (?watch=1).
    expect(page.locator("#run-status")).to_have_text("completed", timeout=60_000)
    steps = page.locator("#timeline tr.step")
    expect(steps).to_have_count(3)
    expect(steps.locator(".ok")).to_have_count(3)
    expect(page.locator("#run-vars")).to_contain_text("email_welcome")
    shot(page, "5-run-completed")

    page.goto(f"{base}/admin/triggers/triggerinstance/?q={trigger_id}")
    expect(page.locator("#result_list tbody tr")).to_have_count(1)
    expect(page.locator("#result_list")).to_contain_text("completed")
    shot(page, "6-trigger-list")

    trigger = TriggerInstance.objects.get(pk=trigger_id)
    assert trigger.idempotency_key.startswith("admin-test-")
    assert trigger.workflow.key == key and trigger.status == "completed"
    assert [s.node_id for s in StepExecutionLog.objects.filter(trigger=trigger)] == [
        "welcome",
        "pause",
        "text",
    ]
    (mail,) = smtp_server.handler.to(address)
    assert mail.subject == "Welcome Ada"

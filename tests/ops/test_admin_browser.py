"""The operator's path through the admin in a real browser (Debian's chromium, headless):
log in, author a three-node workflow in the inline rows, see its picture, preview, send a test,
and follow the run to completion with its step logs; the lists and pages fit the window at 1280
and 1920 px; the way in (landing page, branded admin) and an API key's life. Screenshots land
in artifacts/screenshots/, but for those the docs show (docs_image).

Over 500 lines: each test is one operator's path through real pages, step by step, and the
helpers that seed and measure those pages serve several of them.
"""

from __future__ import annotations

import os
import re
import uuid
from datetime import timedelta
from pathlib import Path

import pytest
import requests
from django.contrib.auth.hashers import PBKDF2PasswordHasher
from django.contrib.auth.models import User
from django.db import connections, transaction
from django.utils import timezone

from tests.conftest import unique
from tests.factories import (
    WorkflowFactory,
    chain,
    delay_node,
    digest_node,
    email_node,
    sms_node,
    throttle_node,
    window_node,
)
from tests.support.stack import ROOT, wait_for
from tests.triggers.support import claimed, failed, new_trigger, released
from triggers.models import ApiKey, TriggerInstance
from workers.models import StepExecutionLog
from workflows.services import workflow_update

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
# The screenshots the docs show are written into docs/images/ only when asked, as the snapshots
# are (NOTIFLOW_SNAPSHOT_UPDATE=1: then review them and commit), so that a test run leaves git
# clean; otherwise they land with the others.
DOCS_IMAGES = ROOT / "docs" / "images"
UPDATE_DOCS_IMAGES = os.environ.get("NOTIFLOW_SNAPSHOT_UPDATE") == "1"


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


def docs_image(name: str) -> str:
    """Where the screenshot docs/images/<name> goes: there when updating, else beside the rest."""
    return str((DOCS_IMAGES if UPDATE_DOCS_IMAGES else SHOTS) / name)


def log_in(page, base: str) -> str:
    """A new superuser, logged in on the login page; returns the user name."""
    from playwright.sync_api import expect

    username, password = unique("operator"), unique("pw")
    # Hashed with the production hasher: gunicorn runs notiflow.settings, not the tests' MD5.
    User.objects.create(
        username=username,
        password=PBKDF2PasswordHasher().encode(password, PBKDF2PasswordHasher().salt()),
        is_staff=True,
        is_superuser=True,
    )
    page.goto(f"{base}/admin/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.click("input[type=submit]")
    expect(page.locator("#user-tools")).to_contain_text(username)
    return username


def test_operator_authors_previews_sends_and_follows_a_run(e2e, smtp_server, browser_page):
    from playwright.sync_api import expect

    page, base = browser_page, e2e.base_url
    log_in(page, base)
    key, address = unique("wf-browser"), f"ok-{unique()}@example.com"
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
    # One node row to start with; each further row (node or edge) on demand.
    expect(page.locator("#id_nodes-1-id")).to_have_count(0)
    expect(page.locator("#edge-rows tr")).to_have_count(0)
    page.click("button[data-add=nodes]")
    expect(page.locator("#id_nodes-1-id")).to_be_focused()
    page.click("button[data-add=nodes]")
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
    page.click("button[data-add=edges]")
    page.click("button[data-add=edges]")
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
    page.screenshot(path=docs_image("admin-workflow-page.png"), full_page=True)

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
    page.screenshot(path=docs_image("admin-run-page.png"), full_page=True)

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


# --- lists and pages fit the window ---------------------------------------------------------

WIDTHS = (1280, 1920)
LONG_ERROR = (
    "SMTPRecipientsRefused: {'someone.with.a.rather.long.address@example.com': (550, b'5.1.1 The"
    " email account that you tried to reach does not exist. Please try double-checking the"
    " recipient email address for typos or unnecessary spaces.')}"
)
# How far the page, the list (hidden behind its own scroll bar, or running under the filters)
# and any <pre> (JSON) stick out to the right, in px: all must be <= 0.
OVERFLOW = """() => {
  const out = {page: document.documentElement.scrollWidth - window.innerWidth};
  const results = document.querySelector('#changelist .results');
  const table = document.querySelector('#result_list');
  const filter = document.querySelector('#changelist-filter');
  if (results) out.list_scroll = results.scrollWidth - results.clientWidth;
  if (table && filter) {
    out.under_filter = Math.ceil(table.getBoundingClientRect().right - filter.getBoundingClientRect().left);
  }
  out.pre = Math.max(0, ...[...document.querySelectorAll('pre')].map(p => p.scrollWidth - p.clientWidth));
  return out;
}"""


def seed_runs(workflow, long_id: str) -> dict[str, TriggerInstance]:
    """Runs whose texts are as long as real ones get: a message id in vars, SMTP errors. In one
    transaction, so that none is due when the stack's workers hear of it."""
    payload = {"email": f"ok-{unique()}@example.com", "name": "Ann", "phone": "+15550100"}
    with transaction.atomic():
        waiting = claimed(new_trigger(workflow, **payload), lease_seconds=60)
        released(
            waiting,
            attempts=0,
            due_in=timedelta(minutes=15),
            vars_patch={"email_welcome_email_for_new_customers": {"message_id": long_id}},
        )
        retrying = claimed(new_trigger(workflow, **payload), lease_seconds=60)
        released(retrying, attempts=2, due_in=timedelta(hours=1), error=LONG_ERROR)
        done = failed(new_trigger(workflow, **payload), error=LONG_ERROR)
        started = timezone.now()
        for attempt, trigger in enumerate((waiting, retrying, done), start=1):
            StepExecutionLog.objects.create(
                trigger=trigger,
                workflow=workflow,
                node_id=trigger.current_node_id,
                node_type="email",
                attempt=attempt,
                started_at=started,
                finished_at=started + timedelta(milliseconds=31),
                input={"payload": payload},
                output=None if trigger is not waiting else {"message_id": long_id},
                success=trigger is waiting,
                error="" if trigger is waiting else LONG_ERROR,
            )
    return {"waiting": waiting, "retrying": retrying, "failed": done}


def seed_ledger_and_suppressions(run: TriggerInstance) -> None:
    """Rows as long as real ones: a ledger key with a long node id, a bounce's suppression."""
    from deliveries.models import Suppression
    from workers.models import SendLedger

    node = "welcome_email_for_new_customers"
    SendLedger.objects.create(
        trigger=run,
        node_id=node,
        idempotency_key=f"{run.pk}:{node}",
        channel="email",
        status="sent",
    )
    Suppression.objects.create(
        channel="email",
        recipient=f"a.rather.long.address.{unique()}@example.com",
        reason="bounced",
        source=f"ses:{uuid.uuid4()}-{uuid.uuid4()}",
    )


def assert_fits(page, name: str, *, is_list: bool) -> None:
    overflow = page.evaluate(OVERFLOW)
    if is_list:  # the measure must exist, or a renamed element would make this pass silently
        assert {"list_scroll", "under_filter"} <= overflow.keys(), (name, overflow)
    assert all(value <= 0 for value in overflow.values()), (name, overflow)


def test_lists_and_pages_fit_the_window_at_1280_and_1920(e2e, browser_page):
    from playwright.sync_api import expect

    page, base = browser_page, e2e.base_url
    log_in(page, base)
    first = WorkflowFactory(
        key=unique("wf-welcome-new-customers-with-a-long-key"),
        definition=chain(
            email_node("welcome_email_for_new_customers"),
            delay_node("pause_before_the_text_message", duration="15m"),
            sms_node("text_message_after_the_pause"),
        ),
    )
    definition = {**first.definition, "nodes": [dict(n) for n in first.definition["nodes"]]}
    definition["nodes"][0]["subject"] = "Welcome aboard, {{ payload.name }}"
    workflow = workflow_update(workflow=first, definition=definition, actor="browser-test")
    long_id = f"<{uuid.uuid4()}.{uuid.uuid4()}.welcome_email_for_new_customers@notiflow.local>"
    runs = seed_runs(workflow, long_id)
    version = workflow.versions.get(number=2)
    seed_ledger_and_suppressions(runs["failed"])
    pages = [
        ("trigger-list", f"/admin/triggers/triggerinstance/?workflow__id__exact={workflow.pk}"),
        ("step-logs", f"/admin/workers/stepexecutionlog/?workflow__id__exact={workflow.pk}"),
        ("run", f"/admin/triggers/triggerinstance/{runs['waiting'].pk}/change/"),
        ("version", f"/admin/workflows/workflowversion/{version.pk}/change/"),
        ("diff", f"/admin/workflows/workflow/{workflow.pk}/versions/diff/?a=1&b=2"),
        ("trigger-events-list", f"/admin/triggers/triggerevent/?q={runs['failed'].pk}"),
        ("ledger-list", f"/admin/workers/sendledger/?q={runs['failed'].pk}"),
        ("suppression-list", "/admin/deliveries/suppression/?q=a.rather.long.address"),
        ("webhook-add", "/admin/events/webhookendpoint/add/"),
    ]

    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        for number, (name, path) in enumerate(pages, start=1):
            page.goto(base + path)
            shot(page, f"fit-{width}-{number}-{name}")
            assert_fits(page, f"{name} at {width}px", is_list=name.endswith(("list", "logs")))

        page.goto(base + pages[0][1])
        rows = page.locator("#result_list tbody tr")
        expect(rows).to_have_count(3)
        expect(page.locator("#result_list")).to_contain_text("waiting until")
        expect(page.locator("#result_list")).to_contain_text("retry 2 at")
        # The retrying run's row (the three were created in one transaction: same created_at,
        # so their order in the list is not fixed).
        retry_row = page.locator("#result_list tbody tr", has_text="retry 2 at")
        error = retry_row.locator(".field-error_excerpt .nf-cut")
        expect(error).to_have_attribute("title", LONG_ERROR)  # whole in the tooltip
        # ... and cut on the page: the cell is narrower than its text.
        assert error.evaluate("e => e.scrollWidth > e.clientWidth")

        page.goto(base + pages[2][1])
        expect(page.locator("#run-waiting")).to_contain_text("waiting until")
        expect(page.locator("#run-next-attempt")).to_have_text(re.compile(r"\d\d:\d\d:\d\d$"))
        expect(page.locator("#run-vars .json-block[open] pre")).to_contain_text(long_id)

        page.goto(base + pages[3][1])
        expect(page.locator("h1")).to_have_text(f"{workflow.key} — version 2")
        expect(page.locator(".json-block pre")).to_contain_text('"entry_node_id"')

        # What tells rows apart is in view, not cut: an event's actor, a send's node id, when a
        # suppression was added.
        page.goto(base + pages[5][1])
        actor = page.locator("#result_list .field-actor_cut .nf-wrap").first
        assert actor.evaluate("e => e.scrollWidth <= e.clientWidth")
        page.goto(base + pages[6][1])
        expect(page.locator("#result_list .field-key")).to_contain_text(
            ":welcome_email_for_new_customers"
        )
        page.goto(base + pages[7][1])
        added = page.locator("#result_list td.field-added").first
        box, results = added.bounding_box(), page.locator("#changelist .results").bounding_box()
        assert box and results and box["x"] + box["width"] <= results["x"] + results["width"]


# The change page of a workflow with every node type, as tall as it may get at 1280 px (it was
# 4,809 px, with Preview and Send test below the save bar and an empty node row; 4,784 px with
# the 24-hour charts at its end and the wait_event node, issue 36 and 34; 5,087 px with the fetch
# node's row, the email's layout field and the funnel's line under the charts, issues 48-50).
EVERY_NODE_PAGE_MAX_HEIGHT = 5_200


def every_node_type() -> dict:
    nodes = [
        window_node("hours"),
        throttle_node("cap"),
        digest_node("comments", key="{{ payload.user_id }}"),
        delay_node("pause", duration="5s"),
        email_node(
            "mail",
            subject="{{ vars.digest_comments.count }} new comments",
            body="{% for e in vars.digest_comments.events %}{{ e.author }}: {{ e.text }}\n"
            "{% endfor %}",
        ),
        sms_node("note"),
    ]
    edges = [("hours", "cap", ""), ("cap", "comments", ""), ("comments", "pause", "")]
    edges += [("pause", "mail", ""), ("cap", "note", "vars.throttle_cap.throttled")]
    return {
        "entry_node_id": "hours",
        "nodes": nodes,
        "edges": [{"from": a, "to": b, **({"when": w} if w else {})} for a, b, w in edges],
    }


def test_a_workflow_with_every_node_type_fits_1280_px_and_its_page_is_compact(e2e, browser_page):
    from playwright.sync_api import expect

    page, base = browser_page, e2e.base_url
    log_in(page, base)
    workflow = WorkflowFactory(key=unique("wf-every-node"), definition=every_node_type())
    page.goto(f"{base}/admin/workflows/workflow/{workflow.pk}/change/")
    shot(page, "workflow-every-node-1280")

    size = page.evaluate(
        "() => ({scroll: document.documentElement.scrollWidth,"
        " client: document.documentElement.clientWidth,"
        " height: document.documentElement.scrollHeight,"
        " cards: [...document.querySelectorAll('.node-row')]"
        "   .map(card => card.scrollWidth - card.clientWidth)})"
    )
    assert size["scroll"] <= size["client"], size  # nothing sticks out of the page...
    assert len(size["cards"]) == 6 and max(size["cards"]) <= 0, size  # ...or out of a card
    assert size["height"] <= EVERY_NODE_PAGE_MAX_HEIGHT, size
    # The window's "Closes" and its help text are inside its card (they were 67 px outside).
    card = page.locator('.node-row[data-type="window"]').bounding_box()
    closes = page.locator("#id_nodes-0-end").bounding_box()
    assert card and closes and closes["x"] + closes["width"] <= card["x"] + card["width"]
    # No empty node row: the six nodes and nothing else; Preview and Send test on the first screen.
    expect(page.locator("#node-rows .node-row")).to_have_count(6)
    expect(page.locator("button[name=send_test]")).to_be_in_viewport()
    body = page.locator("#id_nodes-4-body").bounding_box()
    assert body and body["height"] >= 90 and body["width"] >= 600, body
    # The conditional edge after an unconditional one: "passed" and "2. ...", never "otherwise".
    expect(page.locator("#dag")).not_to_contain_text("otherwise")
    expect(page.locator("#dag")).to_contain_text("passed")

    # The sample payload has the digest's shape: its preview is clean.
    page.click("button[name=preview]")
    expect(page.locator("#preview-result")).to_be_visible()
    expect(page.locator(".render-error")).to_have_count(0)
    expect(page.locator('.preview-card[data-node-id="pause"]')).to_contain_text("waits 5s, until")
    shot(page, "workflow-every-node-preview")


def test_a_saved_row_carries_its_own_types_fields_and_gets_another_types_when_changed(
    e2e, browser_page
):
    """The page sends each row with its own type's fields only (it grew ~13 kB a node with every
    type's); changing a saved row's type brings that type's fields from the empty row, and the
    save keeps what was typed in them."""
    from playwright.sync_api import expect

    page, base = browser_page, e2e.base_url
    log_in(page, base)
    workflow = WorkflowFactory(
        key=unique("wf-retype"), definition=chain(email_node("welcome"), sms_node("text"))
    )
    page.goto(f"{base}/admin/workflows/workflow/{workflow.pk}/change/")
    expect(page.locator("#id_nodes-0-subject")).to_be_visible()
    expect(page.locator("#id_nodes-0-delay_amount")).to_have_count(0)
    expect(page.locator("#id_nodes-1-subject")).to_have_count(0)
    page.select_option("#id_nodes-1-type", "delay")
    expect(page.locator("#id_nodes-1-delay_amount")).to_be_visible()
    expect(page.locator("#id_nodes-1-body")).to_be_hidden()
    expect(page.locator("label[for=id_nodes-1-delay_amount]")).to_have_count(1)
    page.fill("#id_nodes-1-delay_amount", "3")
    page.select_option("#id_nodes-1-delay_unit", "s")
    page.select_option("#id_nodes-0-type", "sms")  # shares `to` and `body` with the email
    expect(page.locator("#id_nodes-0-subject")).to_be_hidden()
    expect(page.locator("#id_nodes-0-to")).to_have_value("{{ payload.email }}")
    page.click("input[name=_continue]")

    expect(page.locator(".messagelist .success")).to_contain_text("was changed successfully")
    workflow.refresh_from_db()
    welcome, text = workflow.definition["nodes"]
    assert welcome["type"] == "sms" and welcome["to"] == "{{ payload.email }}", welcome
    assert "subject" not in welcome, welcome
    assert text["type"] == "delay" and text["duration"] == "3s", text


def test_the_workflow_page_shows_its_last_24_hours_as_charts(e2e, browser_page):
    """Runs that ended over the last hours, drawn on the server as SVG: the browser shows the four
    charts inside the page, and the picture in docs/images/ is this one."""
    from playwright.sync_api import expect

    from tests.triggers.test_workflow_charts import ended_run

    page, base = browser_page, e2e.base_url
    log_in(page, base)
    workflow = WorkflowFactory(key=unique("wf-charts"), definition=chain(email_node()))
    now = timezone.now()
    for hour in range(0, 20):
        for n in range(hour % 5 + 1):
            created = now - timedelta(hours=hour, minutes=n + 1)
            status = "failed" if (hour + n) % 7 == 0 else "completed"
            ended_run(
                workflow,
                status,
                created,
                took=2 + n * 3 + hour % 4,
                first_step=0.2 * n,
                sent=[("smtp" if n % 3 else "ses", 1)],
            )
    page.goto(f"{base}/admin/workflows/workflow/{workflow.pk}/change/")
    charts = page.locator("#run-charts svg.nf-chart")
    expect(charts).to_have_count(4)
    for index in range(4):
        expect(charts.nth(index)).to_be_visible()
    expect(page.locator("#run-charts")).to_contain_text("Sends per provider")
    box = page.locator("#run-charts").bounding_box()
    assert box and box["x"] + box["width"] <= 1280, box
    page.locator("#run-charts").screenshot(path=docs_image("workflow-charts.png"))


# --- the way in, and an API key's life ------------------------------------------------------


def test_landing_page_branded_admin_and_an_api_key_shown_once(e2e, browser_page):
    from playwright.sync_api import expect

    page, base = browser_page, e2e.base_url
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(f"{base}/")
        expect(page).to_have_title("Notiflow")
        shot(page, f"site-{width}-1-landing")
    names = page.eval_on_selector_all("#links a", "links => links.map(a => a.textContent)")
    assert names == ["Admin", "API docs", "OpenAPI schema", "Health"]  # no Flower URL set
    for url in page.eval_on_selector_all("#links a", "links => links.map(a => a.href)"):
        assert requests.get(url, timeout=10).status_code == 200, url

    log_in(page, base)
    expect(page.locator("#site-name")).to_have_text("Notiflow")
    sections = page.eval_on_selector_all(
        "#content-main caption", "captions => captions.map(c => c.textContent.trim())"
    )
    assert sections[:7] == [
        "Workflows",
        "Content: translations and layouts",
        "Recipients, preferences and topics",
        "Tenants",
        "Schedules",
        "Triggers",
        "Workers",
    ]
    assert sections[-1] == "Scheduler (internal)"
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(f"{base}/admin/")
        shot(page, f"site-{width}-2-admin-index")
        assert_fits(page, f"admin index at {width}px", is_list=False)
    page.click("#user-tools a:text('View site')")
    expect(page).to_have_url(f"{base}/")

    page.set_viewport_size({"width": 1280, "height": 900})
    name = unique("billing")
    page.goto(f"{base}/admin/triggers/apikey/add/")
    page.fill("#id_name", name)
    page.click("input[name=_save]")
    key = page.input_value("#api-key")
    shot(page, "keys-1280-1-created")
    api = {"Authorization": f"Bearer {key}"}
    assert requests.get(f"{base}/api/workflows/", headers=api, timeout=10).status_code == 200

    page.goto(f"{base}/admin/triggers/apikey/?q={name}")
    row = page.locator("#result_list tbody tr")
    expect(row).to_have_count(1)
    expect(row).to_contain_text("active")
    shot(page, "keys-1280-2-list")
    stored = ApiKey.objects.get(name=name)
    for path in ("", f"{stored.pk}/change/", f"{stored.pk}/history/"):
        page.goto(f"{base}/admin/triggers/apikey/{path}?q={name}")
        html = page.content()
        assert key not in html and stored.key_hash not in html, path

    page.goto(f"{base}/admin/triggers/apikey/?q={name}")
    page.check("#result_list tbody tr input.action-select")
    page.select_option("select[name=action]", "revoke_selected")
    page.click("button[name=index]")
    expect(page.locator(".messagelist .success")).to_have_text(f"Revoked: {name}.")
    expect(page.locator("#result_list tbody tr")).to_contain_text("revoked ")
    shot(page, "keys-1280-3-revoked")
    # Refused at once by the process that revoked it, within the key cache's TTL by the other.
    wait_for(
        lambda: requests.get(f"{base}/api/workflows/", headers=api, timeout=10).status_code == 401,
        timeout=15,
        interval=0.5,
        message="the revoked key to be refused",
    )


def test_operator_authors_window_throttle_and_digest_nodes_in_the_rows_and_runs_them(
    e2e, smtp_server, browser_page
):
    from playwright.sync_api import expect

    page, base = browser_page, e2e.base_url
    log_in(page, base)
    key, address = unique("wf-flow"), f"flow-{unique()}@example.com"
    now = timezone.now()
    page.goto(f"{base}/admin/workflows/workflow/add/")
    for _ in range(3):
        page.click("button[data-add=nodes]")
    page.fill("#id_key", key)
    page.fill("#id_name", "Browser flow")

    page.fill("#id_nodes-0-id", "hours")
    page.select_option("#id_nodes-0-type", "window")
    # Only a window's fields show: its zone, hours and days, no recipient, no wait.
    expect(page.locator("#id_nodes-0-to")).to_be_hidden()
    expect(page.locator("#id_nodes-0-delay_amount")).to_be_hidden()
    expect(page.locator("#id_nodes-0-key")).to_be_hidden()
    page.fill("#id_nodes-0-timezone", "{{ payload.tz }}")
    page.fill("#id_nodes-0-start", (now - timedelta(hours=1)).strftime("%H:00"))
    page.fill("#id_nodes-0-end", (now + timedelta(hours=2)).strftime("%H:00"))
    # Today's box and yesterday's (a window opened before midnight belongs to its first day).
    for day in {now.weekday(), (now - timedelta(days=1)).weekday()}:
        page.check(f"#id_nodes-0-days_{day}")
    expect(page.locator("#id_nodes-0-days_6")).to_be_visible()

    page.fill("#id_nodes-1-id", "cap")
    page.select_option("#id_nodes-1-type", "throttle")
    expect(page.locator("#id_nodes-1-days_0")).to_be_hidden()
    page.fill("#id_nodes-1-key", "{{ payload.email }}")
    page.fill("#id_nodes-1-limit", "5")
    page.fill("#id_nodes-1-window", "1h")

    page.fill("#id_nodes-2-id", "batch")
    page.select_option("#id_nodes-2-type", "digest")
    expect(page.locator("#id_nodes-2-limit")).to_be_hidden()
    page.fill("#id_nodes-2-key", "{{ payload.email }}")
    page.fill("#id_nodes-2-window", "2s")

    page.fill("#id_nodes-3-id", "mail")
    page.select_option("#id_nodes-3-type", "email")
    page.fill("#id_nodes-3-to", "{{ payload.email }}")
    page.fill("#id_nodes-3-subject", "{{ vars.digest_batch.count }} for {{ payload.name }}")
    page.fill("#id_nodes-3-body", "Passed {{ vars.throttle_cap.count }}")
    page.select_option("#id_entry_node_id", "hours")
    for index, (source, target) in enumerate(
        [("hours", "cap"), ("cap", "batch"), ("batch", "mail")]
    ):
        page.click("button[data-add=edges]")
        page.select_option(f"#id_edges-{index}-source", source)
        page.select_option(f"#id_edges-{index}-target", target)
    shot(page, "7-add-flow-workflow")
    page.click("input[name=_continue]")

    expect(page.locator(".messagelist .success")).to_contain_text("was added successfully")
    picture = page.locator("#dag svg.workflow-dag")
    expect(picture).to_contain_text("throttle · 5 per 1h")
    expect(picture).to_contain_text("digest · 2s by")
    page.fill("#id_payload", f'{{"email": "{address}", "name": "Ada", "tz": "UTC"}}')
    page.click("button[name=send_test]")
    expect(page.locator(".messagelist .success")).to_contain_text("Test run")
    expect(page.locator("#run-status")).to_have_text("completed", timeout=60_000)
    shot(page, "8-flow-run-completed")

    workflow = TriggerInstance.objects.filter(workflow__key=key).get().workflow
    assert [n["type"] for n in workflow.definition["nodes"]] == [
        "window",
        "throttle",
        "digest",
        "email",
    ]
    (mail,) = smtp_server.handler.to(address)
    assert mail.subject == "1 for Ada" and "Passed 1" in mail.body


def test_operator_edits_a_translation_catalog_and_compares_its_versions(e2e, browser_page):
    from playwright.sync_api import expect

    from content.models import TranslationCatalog
    from content.services import catalog_delete

    page, base = browser_page, e2e.base_url
    log_in(page, base)
    locale = "fr-CA"
    catalog_delete(locale=locale)  # the stack's database outlives a test
    page.goto(f"{base}/admin/content/translationcatalog/add/")
    page.fill("#id_locale", "fr-ca")
    page.fill("#id_messages", '{"cart": {"items": {"one": "{{ count }} article"}}}')
    page.click("input[name=_continue]")
    expect(page.locator(".errorlist")).to_contain_text("messages.cart.items: a plural object")
    shot(page, "catalog-refused")

    page.fill(
        "#id_messages",
        '{"cart": {"items": {"one": "{{ count }} article", "other": "{{ count }} articles"}}}',
    )
    page.click("input[name=_continue]")
    expect(page.locator(".messagelist")).to_contain_text("was added successfully")
    page.fill(
        "#id_messages",
        '{"cart": {"items": {"one": "{{ count }} produit", "other": "{{ count }} produits"}},'
        ' "bye": "Au revoir"}',
    )
    page.click("input[name=_continue]")
    version = TranslationCatalog.objects.get(locale=locale).version
    current = page.locator("#versions tbody tr").first
    expect(current).to_contain_text(f"v{version} (current)")

    page.click("#versions button[type=submit]")
    expect(page.locator(".diff-summary")).to_contain_text("bye added")
    expect(page.locator(".diff-summary")).to_contain_text("cart.items changed")
    expect(page.locator(".diff .add").first).to_be_visible()
    shot(page, "catalog-diff")
    catalog_delete(locale=locale)


# --- the pages of tenants, schedules, layouts and bulk actions -------------------------------


def seed_new_admin_pages(workflow) -> dict[str, str]:
    """A tenant, a schedule with its occurrences, a layout and a partial with two versions each,
    as long as real ones get; the admin paths that show them."""
    from content.models import Layout, Partial
    from content.services import layout_put, partial_put
    from recipients.categories import category_put
    from recipients.models import Recipient
    from schedules.models import ScheduleOccurrence
    from schedules.services import ScheduleRequest, schedule_put
    from tenants.models import Tenant
    from tenants.services import tenant_put

    category = unique("product-updates")
    category_put(slug=category, name="Product updates", description="", defaults={})
    tenant_id = unique("acme-corporation-europe")
    properties = {
        "logo_url": f"https://static.acme-corporation.example/brand/{uuid.uuid4()}/logo.png",
        "color": "#ff5500",
        "support": {"email": "support@acme-corporation.example", "phone": "+33 1 23 45 67 89"},
        "footer": "Acme Corporation Europe SAS, 12 rue de la Paix, 75002 Paris, France",
    }
    tenant_put(
        tenant_id=tenant_id,
        fields={
            "name": "Acme Corporation Europe",
            "properties": properties,
            "default_locale": "fr",
            "preferences": {category: {"email": False, "sms": True}},
        },
        actor="browser-test",
    )
    tenant_put(
        tenant_id=tenant_id,
        fields={"name": "Acme Corporation (Europe)", "properties": properties},
        actor="admin:someone.with.a.long.name",
    )
    people = [unique(f"customer-{zone.split('/')[-1].lower()}") for zone in ZONES]
    Recipient.objects.bulk_create(
        [Recipient(key=key, timezone=zone) for key, zone in zip(people, ZONES, strict=True)]
    )
    # Far ahead: the stack's workers must not fire it while the test looks.
    schedule, _ = schedule_put(
        ScheduleRequest(
            id=unique("weekly-digest-for-every-customer"),
            workflow=workflow.key,
            repeat="FREQ=WEEKLY;BYDAY=MO,WE,FR;BYHOUR=9;BYMINUTE=30",
            recipients=people,
            payload={"digest": {"title": "Your week at Acme", "sections": ["news", "tips"]}},
            starts_at="2036-01-01T00:00:00",
            tenant=tenant_id,
        ),
        actor="browser-test",
    )
    now = timezone.now()
    ScheduleOccurrence.objects.bulk_create(
        [
            ScheduleOccurrence(
                schedule=schedule,
                local=f"2026-11-{day:02d}T09:30",
                zone=zone,
                occurs_at=now - timedelta(days=30 - day),
                status="done" if day % 2 else "skipped",
                runs=1 if day % 2 else 0,
                reason="" if day % 2 else "past its catch-up window (1h): the workers were down",
            )
            for day in (20, 23, 25)
            for zone in ZONES
        ]
    )
    layout_key = unique("brand-newsletter")
    html = (
        '<html><body style="font-family: sans-serif; background: #f6f6f6">'
        '<table width="100%" cellpadding="0" cellspacing="0"><tr><td align="center">'
        '<img src="{{ tenant.properties.logo_url }}" alt="{{ tenant.name }}" width="160">'
        '</td></tr><tr><td>{{ content }}</td></tr></table>{% render "footer" %}</body></html>'
    )
    layout_put(key=layout_key, name="Brand newsletter", html=html, text="{{ content }}")
    layout_put(
        key=layout_key,
        name="Brand newsletter",
        html=html.replace("#f6f6f6", "#ffffff"),
        text="{{ content }}\n\n-- \nAcme",
        actor="admin:someone.with.a.long.name",
    )
    partial_key = unique("footer")
    partial_put(key=partial_key, content="<p>{{ tenant.properties.footer }}</p>")
    partial_put(key=partial_key, content='<p>{{ "footer.legal" | t }}</p>', actor="browser-test")
    layout = Layout.objects.get(key=layout_key)
    partial = Partial.objects.get(key=partial_key)
    return {
        "tenant-list": f"/admin/tenants/tenant/?q={tenant_id}",
        "tenant": f"/admin/tenants/tenant/{Tenant.objects.get(id=tenant_id).pk}/change/",
        "tenant-changes-list": f"/admin/tenants/tenantchange/?q={tenant_id}",
        "schedule-list": f"/admin/schedules/schedule/?q={schedule.pk}",
        "schedule": f"/admin/schedules/schedule/{schedule.pk}/change/",
        "layout-list": f"/admin/content/layout/?q={layout_key}",
        "layout": f"/admin/content/layout/{layout.pk}/change/",
        "layout-diff": f"/admin/content/layout/versions/{layout_key}/diff/",
        "partial-list": f"/admin/content/partial/?q={partial_key}",
        "partial": f"/admin/content/partial/{partial.pk}/change/",
        "content-versions-list": f"/admin/content/contentversion/?q={layout_key}",
    }


ZONES = ("Europe/Paris", "America/Los_Angeles", "Asia/Kolkata")


# The lists among those pages with a filter column beside them.
FILTERED_LISTS = {"tenant-changes-list", "schedule-list", "content-versions-list"}


def test_tenants_schedules_layouts_and_a_bulk_action_read_well_at_1280_px(e2e, browser_page):
    """The admin pages of the newer rooms, looked at: nothing past the window's edge, no wall of
    raw text, the links an operator follows there, and each screenshot kept."""
    from playwright.sync_api import expect

    page, base = browser_page, e2e.base_url
    log_in(page, base)
    workflow = WorkflowFactory(
        key=unique("wf-weekly-digest"), definition=chain(delay_node("pause", duration="1h"))
    )
    pages = seed_new_admin_pages(workflow)
    for number, (name, path) in enumerate(pages.items(), start=1):
        page.goto(base + path)
        shot(page, f"rooms-1280-{number}-{name}")
        assert_fits(page, f"{name} at 1280px", is_list=name in FILTERED_LISTS)

    # A tenant: its id first, its JSON in full, its change log a click away.
    page.goto(base + pages["tenant"])
    expect(page.locator("fieldset .form-row").first).to_contain_text("Id")
    properties = page.locator("#id_properties")
    assert properties.evaluate("e => e.scrollHeight <= e.clientHeight"), "properties cut"
    page.click("text=2 recorded changes")
    expect(page.locator("#result_list tbody tr")).to_have_count(2)

    # A schedule: its rule wraps in the list; its page reads the next times as a table, each
    # time whole, and links its workflow and tenant.
    page.goto(base + pages["schedule-list"])
    expect(page.locator("#result_list")).to_contain_text("each recipient's own")
    page.goto(base + pages["schedule"])
    table = page.locator(".nf-occurrences")
    expect(table.locator("tr")).to_have_count(1 + len(ZONES))
    expect(table).to_contain_text("2036-01-02 09:30")
    expect(page.locator(".field-catch_up")).to_contain_text("1h")
    heights = table.locator(".nf-nowrap").evaluate_all(
        "spans => spans.map(s => s.getClientRects().length)"
    )
    assert heights and max(heights) == 1, heights  # no time broken across lines
    page.click(".field-tenant_link a")
    expect(page.locator("#content h2")).to_contain_text("Acme Corporation (Europe)")
    page.goto(base + pages["schedule"])
    page.click(".field-workflow a")
    expect(page.locator("#result_list tbody tr")).to_have_count(1)

    # A layout: its history below the form (it ran behind the buttons), the diff in view.
    page.goto(base + pages["layout"])
    expect(page.locator("fieldset .form-row").first).to_contain_text("Key")
    buttons = page.locator(".submit-row").bounding_box()
    history = page.locator("#versions").bounding_box()
    assert buttons and history and history["y"] >= buttons["y"] + buttons["height"], (
        buttons,
        history,
    )
    page.click("#versions button[type=submit]")
    expect(page.locator(".diff .add").first).to_contain_text("#ffffff")
    diff = page.locator(".diff")
    assert diff.evaluate("e => e.scrollWidth <= e.clientWidth"), "the diff scrolls sideways"
    shot(page, "rooms-1280-layout-diff-from-history")
    page.goto(base + pages["content-versions-list"])
    page.click("text=from version 1")
    expect(page.locator(".diff-summary")).to_contain_text("html changed")

    # A bulk action: its confirmation from the run list, then its page linking the runs.
    seed_runs(workflow, f"<{uuid.uuid4()}@notiflow.local>")
    page.goto(f"{base}/admin/triggers/triggerinstance/?workflow__id__exact={workflow.pk}")
    page.check("#action-toggle")
    page.select_option("select[name=action]", "bulk_cancel")
    page.click("button[name=index]")
    expect(page.locator("#bulk-action-count")).to_contain_text("of the 3")
    shot(page, "rooms-1280-bulk-confirmation")
    assert_fits(page, "bulk confirmation at 1280px", is_list=False)
    page.click("input[type=submit]")
    expect(page.locator(".messagelist .success")).to_contain_text("Bulk action")
    expect(page.locator(".field-runs a")).to_have_count(3)
    expect(page.locator(".field-created")).to_contain_text(re.compile(r"\d{4}-\d\d-\d\d \d\d:"))
    shot(page, "rooms-1280-bulk-action")
    assert_fits(page, "bulk action at 1280px", is_list=False)

"""The web push service worker (recipients/static/notiflow/push/service-worker.js) in a real
browser (Debian's chromium, headless): a push shows its notification, and a second copy of one
message (the resend from a worker's crash window, with the same tag) replaces the first."""

from __future__ import annotations

import functools
import json
import time
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tests.ops.test_admin_browser import CHROMIUM, CHROMIUM_ARGS
from tests.support.serving import serving_thread
from tests.support.stack import ROOT

STATIC = ROOT / "recipients" / "static" / "notiflow" / "push"
PAGE = b"<!doctype html><title>shop</title><script src='/subscribe.js'></script>"


class Site(SimpleHTTPRequestHandler):
    """The customer's site: the page, and the two files served from its own origin."""

    def do_GET(self) -> None:
        if self.path == "/":
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            self.wfile.write(PAGE)
            return
        super().do_GET()

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def site() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Site, directory=str(STATIC)))
    serving_thread(server).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"  # loopback: a secure context
    server.shutdown()


@pytest.fixture
def browser_page(site):
    sync_api = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.fail("/usr/bin/chromium is missing: `make test` installs it")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        context = browser.new_context()
        context.grant_permissions(["notifications"], origin=site)
        page = context.new_page()
        page.set_default_timeout(20_000)
        try:
            yield page
        finally:
            browser.close()


SHOWN = """async () => {
    const registration = await navigator.serviceWorker.ready;
    const shown = await registration.getNotifications();
    return shown.map(n => ({title: n.title, body: n.body, tag: n.tag, url: n.data.url}));
}"""


def test_a_push_is_shown_and_a_second_copy_replaces_it(browser_page, site):
    page = browser_page
    page.goto(site + "/")
    assert page.evaluate("typeof window.notiflowPushSubscribe") == "function"
    page.evaluate(
        "navigator.serviceWorker.register('/service-worker.js').then(() => "
        "navigator.serviceWorker.ready).then(() => true)"
    )
    cdp = page.context.new_cdp_session(page)
    registrations: list[dict] = []
    cdp.on(
        "ServiceWorker.workerRegistrationUpdated",
        lambda e: registrations.extend(e["registrations"]),
    )
    cdp.send("ServiceWorker.enable")
    deadline = time.monotonic() + 10
    while not registrations:
        assert time.monotonic() < deadline, "no service worker registration reported"
        page.wait_for_timeout(50)  # Playwright dispatches the CDP event meanwhile

    def push(message: dict) -> None:
        cdp.send(
            "ServiceWorker.deliverPushMessage",
            {
                "origin": site + "/",
                "registrationId": registrations[0]["registrationId"],
                "data": json.dumps(message),
            },
        )

    shipped = {"title": "Shipped", "body": "Order 7", "url": "/orders/7", "tag": "push-1"}
    push(shipped)
    push(shipped)  # the same message again: one notification
    push({"title": "Other", "body": "Order 8", "tag": "push-2"})
    # Pushes are handled in order: once the last is shown, both copies of the first have been.
    page.wait_for_function(f"({SHOWN})().then(shown => shown.some(n => n.tag === 'push-2'))")
    assert sorted(page.evaluate(SHOWN), key=lambda n: n["tag"]) == [
        {"title": "Shipped", "body": "Order 7", "tag": "push-1", "url": "/orders/7"},
        {"title": "Other", "body": "Order 8", "tag": "push-2", "url": "/"},
    ]

"""`make run`'s mail catcher (scripts/mailcatcher.py), run as make run runs it: real SMTP in, a
.eml file on disk, and the web page that lists and shows it."""

from __future__ import annotations

import os
import signal
import smtplib
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from email.message import EmailMessage
from pathlib import Path

import pytest
import requests

from tests.support.smtp import free_port
from tests.support.stack import ROOT, wait_for


@dataclass
class Catcher:
    smtp_port: int
    web: str
    directory: Path
    process: subprocess.Popen


@pytest.fixture(scope="module")
def catcher_process(tmp_path_factory) -> Iterator[Catcher]:
    """One catcher for the module (its start and its stop take a second): each test empties
    its directory first (`catcher`)."""
    tmp_path = tmp_path_factory.mktemp("catcher")
    smtp_port, web_port = free_port(), free_port()
    directory = tmp_path / "mail"
    log = (tmp_path / "catcher.log").open("wb")
    process = subprocess.Popen(
        [
            sys.executable,
            str(ROOT / "scripts" / "mailcatcher.py"),
            f"--smtp=127.0.0.1:{smtp_port}",
            f"--web=127.0.0.1:{web_port}",
            f"--dir={directory}",
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    web = f"http://127.0.0.1:{web_port}"

    def up() -> bool:
        assert process.poll() is None, (tmp_path / "catcher.log").read_text()
        try:
            return requests.get(web + "/", timeout=2).status_code == 200
        except requests.ConnectionError:
            return False

    try:
        wait_for(up, timeout=30, interval=0.1, message="the mail catcher to listen")
        yield Catcher(smtp_port, web, directory, process)
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=10)


@pytest.fixture
def catcher(catcher_process) -> Catcher:
    """The module's catcher with no message caught yet."""
    assert catcher_process.process.poll() is None, "the mail catcher has exited"
    for caught in catcher_process.directory.glob("*.eml"):
        caught.unlink()
    return catcher_process


def send(
    port: int,
    *,
    subject: str,
    body: str,
    to: str = "ann@example.com",
    html: str | None = None,
    headers: dict[str, str] | None = None,
) -> None:
    message = EmailMessage()
    message["From"] = "Notiflow <notifications@notiflow.local>"
    message["To"] = to
    message["Subject"] = subject
    for name, value in (headers or {}).items():
        message[name] = value
    message.set_content(body)
    message.add_alternative(html or f"<p>{body}</p>", subtype="html")
    with smtplib.SMTP("127.0.0.1", port, timeout=10) as smtp:
        smtp.send_message(message)


def test_a_caught_message_is_a_file_listed_on_the_page_and_readable(catcher):
    send(catcher.smtp_port, subject="Welcome to Acme, Ann!", body="Hi Ann,\nThanks for signing up.")

    [eml] = list(catcher.directory.glob("*.eml"))
    assert b"Subject: Welcome to Acme, Ann!" in eml.read_bytes()
    listing = requests.get(catcher.web + "/", timeout=5)
    assert listing.status_code == 200
    assert "Welcome to Acme, Ann!" in listing.text and "ann@example.com" in listing.text
    assert f'href="/messages/{eml.name}"' in listing.text

    page = requests.get(f"{catcher.web}/messages/{eml.name}", timeout=5)
    assert page.status_code == 200
    assert "Hi Ann,\nThanks for signing up." in page.text  # the text part, not the HTML one
    raw = requests.get(f"{catcher.web}/raw/{eml.name}", timeout=5)
    assert raw.content == eml.read_bytes()


def test_newest_message_is_listed_first_and_the_envelope_is_kept(catcher):
    send(catcher.smtp_port, subject="first", body="1")
    send(catcher.smtp_port, subject="second", body="2", to="bob@example.com")

    listing = requests.get(catcher.web + "/", timeout=5).text
    assert listing.index("second") < listing.index("first")
    newest = sorted(catcher.directory.glob("*.eml"))[-1]
    assert b"X-RcptTo: bob@example.com" in newest.read_bytes()


def test_message_content_is_escaped_and_pages_run_no_script(catcher):
    send(
        catcher.smtp_port, subject="<script>alert(1)</script>", body="<img src=x onerror=alert(1)>"
    )

    listing = requests.get(catcher.web + "/", timeout=5)
    assert "<script>alert(1)" not in listing.text and "&lt;script&gt;alert(1)" in listing.text
    assert "script-src" not in listing.headers["Content-Security-Policy"]
    assert listing.headers["Content-Security-Policy"].startswith("default-src 'none'")
    [eml] = list(catcher.directory.glob("*.eml"))
    page = requests.get(f"{catcher.web}/messages/{eml.name}", timeout=5).text
    assert "<img src=x" not in page and "&lt;img src=x onerror=alert(1)&gt;" in page


def test_a_message_shows_its_html_part_in_a_sandboxed_frame_and_every_header(catcher):
    unsubscribe = "<https://notiflow.test/deliveries/unsubscribe/abc/>"
    send(
        catcher.smtp_port,
        subject="Your digest",
        body="3 new comments",
        html='<p style="color:#2f6fb5">3 new <b>comments</b></p><img src="https://t.example/p.gif">',
        headers={
            "List-Unsubscribe": unsubscribe,
            "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
        },
    )
    [eml] = list(catcher.directory.glob("*.eml"))

    page = requests.get(f"{catcher.web}/messages/{eml.name}", timeout=5)
    assert f'<iframe sandbox src="/html/{eml.name}"' in page.text
    assert "frame-src 'self'" in page.headers["Content-Security-Policy"]
    headers = page.text[page.text.index('<table class="headers">') :]
    assert (
        "<th>List-Unsubscribe</th><td>&lt;https://notiflow.test/deliveries/unsubscribe/abc/&gt;</td>"
        in headers
    )
    assert "<th>List-Unsubscribe-Post</th><td>List-Unsubscribe=One-Click</td>" in headers
    assert "<th>X-MailFrom</th>" in headers  # the envelope too, as every header in the file

    part = requests.get(f"{catcher.web}/html/{eml.name}", timeout=5)
    assert part.status_code == 200 and "3 new <b>comments</b>" in part.text
    # Sandboxed even when opened on its own, and the tracking pixel is never fetched.
    csp = part.headers["Content-Security-Policy"]
    assert csp.startswith("sandbox;") and "default-src 'none'" in csp and "script" not in csp


def test_a_message_without_html_has_no_frame(catcher):
    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = "a@example.com", "b@example.com", "plain"
    message.set_content("only text")
    with smtplib.SMTP("127.0.0.1", catcher.smtp_port, timeout=10) as smtp:
        smtp.send_message(message)
    [eml] = list(catcher.directory.glob("*.eml"))

    page = requests.get(f"{catcher.web}/messages/{eml.name}", timeout=5).text
    assert "<iframe" not in page and "only text" in page
    assert requests.get(f"{catcher.web}/html/{eml.name}", timeout=5).content == b""


@pytest.mark.parametrize(
    "path",
    [
        "/messages/../catcher.log",
        "/messages/nothing.eml",
        "/raw/%2e%2e%2fcatcher.log",
        "/html/../catcher.log",
        "/x",
    ],
)
def test_only_caught_messages_are_served(catcher, path):
    assert requests.get(catcher.web + path, timeout=5).status_code == 404

"""A mail catcher for development (`make run` starts it when Mailpit is not installed).

    python scripts/mailcatcher.py --smtp 127.0.0.1:1025 --web 127.0.0.1:8025 --dir .run/mail

An SMTP server (aiosmtpd) accepts every message and keeps it as a `.eml` file in --dir, named
so that names sort by arrival; a web page lists them (date, from, to, subject, newest first)
and shows one message as Mailpit does: its HTML part in a sandboxed frame, its text part, and
every header in a table (List-Unsubscribe included). Nothing is relayed anywhere. Both listen on
loopback unless told otherwise; every value shown comes from a message and is HTML-escaped, and
the pages carry a Content-Security-Policy that runs no script. The HTML part is served on its own
(/html/<name>) under a CSP `sandbox` that also loads nothing from the network (no tracking
pixel fires): a sandboxed iframe shows it.
"""

from __future__ import annotations

import argparse
import email
import email.policy
import html
import logging
import re
import signal
import sys
import threading
import uuid
from datetime import UTC, datetime
from email.message import EmailMessage
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from aiosmtpd.controller import Controller

logger = logging.getLogger("mailcatcher")

LIST_LIMIT = 200
# The pages: no script, and frames only from here (the HTML part's own URL).
PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; frame-src 'self'"
# A message's HTML part: sandboxed (no script, an origin of its own) even when opened directly,
# its inline styles and embedded (data:) images shown, nothing fetched from the network.
HTML_PART_CSP = "sandbox; default-src 'none'; style-src 'unsafe-inline'; img-src data:"
_NAME = re.compile(r"^[0-9TZ.]+-[0-9a-f]{8}\.eml$")


class MailDirHandler:
    """aiosmtpd handler: each message becomes one file, written whole or not at all."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S.%fZ")
        path = self.directory / f"{stamp}-{uuid.uuid4().hex[:8]}.eml"
        # The envelope, as aiosmtpd's own Message handler records it: Bcc'd recipients show too.
        envelope_headers = (
            f"X-MailFrom: {envelope.mail_from}\r\nX-RcptTo: {', '.join(envelope.rcpt_tos)}\r\n"
        )
        partial = path.with_suffix(".part")
        partial.write_bytes(envelope_headers.encode() + envelope.content)
        partial.rename(path)
        logger.info("caught %s for %s", path.name, ", ".join(envelope.rcpt_tos))
        return "250 Message accepted for delivery"


def received_at(path: Path) -> str:
    """When the message arrived, from its file name: "2026-11-23 13:45:08"."""
    stamp = path.name.split(".", 1)[0]
    return datetime.strptime(stamp, "%Y%m%dT%H%M%S").strftime("%Y-%m-%d %H:%M:%S")


def _parse(path: Path) -> EmailMessage:
    with path.open("rb") as handle:
        message = email.message_from_binary_file(handle, policy=email.policy.default)
    assert isinstance(message, EmailMessage)
    return message


def message_text(message: EmailMessage) -> str:
    """The plain-text body, else the HTML body as source, else an explanation."""
    part = message.get_body(preferencelist=("plain", "html"))
    if part is None:
        return "(no text or HTML body)"
    return _content(part)


def message_html(message: EmailMessage) -> str | None:
    """The HTML body as sent, or None when the message has none."""
    part = message.get_body(preferencelist=("html",))
    return None if part is None else _content(part)


def _content(part: Any) -> str:
    try:
        return str(part.get_content())
    except (LookupError, ValueError) as exc:  # an unknown charset or a broken encoding
        return f"(the body cannot be decoded: {exc})"


def _page(title: str, body: str, *, refresh: bool = False) -> bytes:
    meta = '<meta http-equiv="refresh" content="5">' if refresh else ""
    return f"""<!doctype html>
<html><head><meta charset="utf-8">{meta}<title>{html.escape(title)}</title>
<style>body{{font:14px system-ui,sans-serif;margin:2em}}table{{border-collapse:collapse}}
td,th{{padding:.3em .8em;border-bottom:1px solid #ddd;text-align:left;vertical-align:top}}
pre{{white-space:pre-wrap;background:#f6f6f6;padding:1em}}h2{{font-size:1.1em;margin-top:1.5em}}
iframe{{width:100%;height:28em;border:1px solid #ddd;background:#fff}}
table.headers td{{font-family:monospace;font-size:12px;overflow-wrap:anywhere}}</style></head>
<body>{body}</body></html>""".encode()


def list_page(directory: Path) -> bytes:
    paths = sorted(directory.glob("*.eml"), reverse=True)
    rows = []
    for path in paths[:LIST_LIMIT]:
        message = _parse(path)
        cells = [received_at(path), message.get("From", ""), message.get("To", "")]
        subject = message.get("Subject", "") or "(no subject)"
        rows.append(
            "<tr>"
            + "".join(f"<td>{html.escape(str(cell))}</td>" for cell in cells)
            + f'<td><a href="/messages/{path.name}">{html.escape(str(subject))}</a></td></tr>'
        )
    shown = f"newest {LIST_LIMIT} of {len(paths)}" if len(paths) > LIST_LIMIT else len(paths)
    table = (
        "<table><tr><th>received (UTC)</th><th>from</th><th>to</th><th>subject</th></tr>"
        + "".join(rows)
        + "</table>"
        if rows
        else "<p>No mail yet. This page reloads every 5 seconds.</p>"
    )
    heading = f"<h1>Caught mail ({shown})</h1><p>Files in {html.escape(str(directory))}</p>"
    return _page("Caught mail", heading + table, refresh=True)


def message_page(path: Path) -> bytes:
    message = _parse(path)
    summary = "".join(
        f"<tr><th>{name}</th><td>{html.escape(str(message.get(name, '')))}</td></tr>"
        for name in ("Date", "From", "To", "Subject", "Message-ID", "X-RcptTo")
    )
    every_header = "".join(
        f"<tr><th>{html.escape(name)}</th><td>{html.escape(str(value))}</td></tr>"
        for name, value in message.items()
    )
    html_part = (
        f'<h2>HTML</h2><iframe sandbox src="/html/{path.name}" title="HTML part"></iframe>'
        if message_html(message) is not None
        else ""
    )
    body = (
        '<p><a href="/">all mail</a></p>'
        f"<h1>{html.escape(str(message.get('Subject', '') or '(no subject)'))}</h1>"
        f"<table>{summary}</table>{html_part}"
        f"<h2>Text</h2><pre>{html.escape(message_text(message))}</pre>"
        f'<h2>Headers</h2><table class="headers">{every_header}</table>'
        f'<p><a href="/raw/{path.name}">raw message</a></p>'
    )
    return _page(str(message.get("Subject", "message")), body)


class MailPages(BaseHTTPRequestHandler):
    directory: Path  # set on the subclass made by make_web_server

    def do_GET(self) -> None:
        path = self.path.split("?", 1)[0]
        if path == "/":
            self._send(list_page(self.directory), "text/html; charset=utf-8")
            return
        kind, _, name = path.strip("/").partition("/")
        file = self.directory / name
        if kind in ("messages", "raw", "html") and _NAME.match(name) and file.is_file():
            if kind == "raw":
                self._send(file.read_bytes(), "text/plain; charset=utf-8")
            elif kind == "html":
                part = message_html(_parse(file))
                self._send((part or "").encode(), "text/html; charset=utf-8", csp=HTML_PART_CSP)
            else:
                self._send(message_page(file), "text/html; charset=utf-8")
            return
        self._send(b"not found\n", "text/plain; charset=utf-8", HTTPStatus.NOT_FOUND)

    def _send(
        self, content: bytes, content_type: str, code: int = HTTPStatus.OK, *, csp: str = PAGE_CSP
    ) -> None:
        self.send_response(code)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(content)))
        self.send_header("Content-Security-Policy", csp)
        self.send_header("X-Content-Type-Options", "nosniff")
        self.end_headers()
        self.wfile.write(content)

    def log_message(self, format: str, *args: Any) -> None:
        logger.debug(format, *args)


def make_web_server(host: str, port: int, directory: Path) -> ThreadingHTTPServer:
    handler = type("BoundMailPages", (MailPages,), {"directory": directory})
    return ThreadingHTTPServer((host, port), handler)


def _address(value: str) -> tuple[str, int]:
    host, _, port = value.rpartition(":")
    if not host or not port.isdigit():
        raise argparse.ArgumentTypeError(f"{value!r} is not host:port")
    return host, int(port)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="A mail catcher for development.")
    parser.add_argument("--smtp", type=_address, default=("127.0.0.1", 1025), metavar="HOST:PORT")
    parser.add_argument("--web", type=_address, default=("127.0.0.1", 8025), metavar="HOST:PORT")
    parser.add_argument("--dir", type=Path, default=Path(".run/mail"))
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(name)s: %(message)s", stream=sys.stdout)
    logging.getLogger("mail.log").setLevel(logging.WARNING)  # aiosmtpd logs every SMTP command
    args.dir.mkdir(parents=True, exist_ok=True)

    (smtp_host, smtp_port), (web_host, web_port) = args.smtp, args.web
    web = make_web_server(web_host, web_port, args.dir)
    smtp = Controller(MailDirHandler(args.dir), hostname=smtp_host, port=smtp_port)
    smtp.start()
    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())
    threading.Thread(target=web.serve_forever, daemon=True).start()
    logger.info(
        "SMTP on %s:%d, mail page http://%s:%d/, messages in %s",
        smtp_host,
        smtp_port,
        web_host,
        web_port,
        args.dir,
    )
    stop.wait()
    web.shutdown()
    smtp.stop()


if __name__ == "__main__":
    main()

"""The bench's link (issue 38): providers 20 ms away, as in production.

- `DelayProxy`: an asyncio TCP proxy that holds every chunk `delay` seconds in each direction,
  in order (10 ms each way is a 20 ms round trip, which handshakes pay too). This machine's
  kernel has no `netem` qdisc, hence a proxy of our own (tests/test_bench_link.py measures the
  delay it adds).
- An SMTP sink speaking STARTTLS (aiosmtpd) and offering PIPELINING, and an HTTPS sink shaped like Postmark's `/email`
  API (for anymail's Postmark backend), both with a self-signed certificate for 127.0.0.1 that
  the senders are told to trust (SSL_CERT_FILE, REQUESTS_CA_BUNDLE). They count what they
  accepted and the connections they were opened, and print it when stopped.
- The plain programs: smtplib and `requests.Session` over the same link, one kept connection
  per sender, as many senders as the engine has pool processes.

`python -m bench.link serve --cert DIR --smtp-port P --esp-port Q --delay-ms 10
 --smtp-proxy-port P2 --esp-proxy-port Q2` runs the sinks and the proxies in one process
(the bench starts it; stop it with SIGTERM).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime
import json
import signal
import smtplib
import ssl
import sys
import threading
import time
import uuid
from dataclasses import dataclass
from email.message import EmailMessage
from pathlib import Path
from typing import Any

# The worker arrangements `--link-layouts` may name (bench/linkrun.py makes them).
LAYOUT_NAMES = (
    "standard",
    "nokeep",
    "prefork16",
    "prefork32",
    "threads8",
    "threads32",
    "2x16threads",
    "2x8threads",
    "4x8threads",
    "standard-nopipe",
    "2x16threads-nopipe",
)

# --- the delaying proxy ---------------------------------------------------------------------------


class DelayProxy:
    """Listens on `listen_port`; each connection is joined to `upstream` with every chunk held
    `delay` seconds in each direction, in the order it came. `connections` counts them."""

    def __init__(self, listen_port: int, upstream: tuple[str, int], delay: float) -> None:
        self.listen_port = listen_port
        self.upstream = upstream
        self.delay = delay
        self.connections = 0
        self.server: asyncio.base_events.Server | None = None

    async def start(self) -> None:
        self.server = await asyncio.start_server(self._join, "127.0.0.1", self.listen_port)
        self.listen_port = self.server.sockets[0].getsockname()[1]

    async def _join(self, client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            up_r, up_w = await asyncio.open_connection(*self.upstream)
        except OSError:
            client_w.close()
            return
        await asyncio.gather(self._pump(client_r, up_w), self._pump(up_r, client_w))

    async def _pump(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[tuple[float, bytes]] = asyncio.Queue()

        async def deliver() -> None:
            while True:
                due, data = await queue.get()
                wait = due - loop.time()
                if wait > 0:
                    await asyncio.sleep(wait)
                if not data:  # the sender's end, delayed like the rest
                    with contextlib.suppress(OSError):
                        writer.close()
                    return
                writer.write(data)
                with contextlib.suppress(OSError):
                    await writer.drain()

        delivering = asyncio.create_task(deliver())
        try:
            while data := await reader.read(65536):
                queue.put_nowait((loop.time() + self.delay, data))
        except OSError:
            pass
        queue.put_nowait((loop.time() + self.delay, b""))
        await delivering

    def close(self) -> None:
        if self.server is not None:
            self.server.close()


# --- the certificate -------------------------------------------------------------------------------


def certificate(folder: Path) -> tuple[Path, Path]:
    """A self-signed CA certificate for 127.0.0.1 and localhost: (cert.pem, key.pem) in `folder`."""
    from cryptography.hazmat.primitives.asymmetric import ec

    from common.certificates import private_key_pem, self_signed_certificate

    folder.mkdir(parents=True, exist_ok=True)
    cert_path, key_path = folder / "link-cert.pem", folder / "link-key.pem"
    key = ec.generate_private_key(ec.SECP256R1())
    cert_path.write_bytes(
        self_signed_certificate(
            key,
            "127.0.0.1",
            valid_since=datetime.timedelta(minutes=5),
            valid_for=datetime.timedelta(days=2),
            names=("127.0.0.1", "localhost"),
            ca=True,
        )
    )
    key_path.write_bytes(private_key_pem(key))
    return cert_path, key_path


def server_context(cert: Path, key: Path) -> ssl.SSLContext:
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    return context


# --- the sinks -------------------------------------------------------------------------------------


@dataclass
class Counts:
    messages: int = 0
    connections: int = 0


class SmtpSinkHandler:
    def __init__(self, counts: Counts) -> None:
        self.counts = counts

    async def handle_EHLO(
        self, server: Any, session: Any, envelope: Any, hostname: str, responses: list[str]
    ) -> list[str]:
        """PIPELINING offered (RFC 2920), as production relays offer it."""
        session.host_name = hostname  # what aiosmtpd leaves to this hook
        return [responses[0], "250-PIPELINING", *responses[1:]]

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.counts.messages += 1
        return "250 OK"


def smtp_sink(port: int, context: ssl.SSLContext, counts: Counts) -> Any:
    """aiosmtpd with STARTTLS required, in a thread of its own (aiosmtpd's Controller)."""
    from aiosmtpd.controller import Controller
    from aiosmtpd.smtp import SMTP

    class CountingSMTP(SMTP):
        def connection_made(self, transport: Any) -> None:
            if self.transport is None:
                counts.connections += 1
            super().connection_made(transport)

    class CountingController(Controller):
        def factory(self) -> SMTP:
            return CountingSMTP(self.handler, **self.SMTP_kwargs)

    controller = CountingController(
        SmtpSinkHandler(counts),
        hostname="127.0.0.1",
        port=port,
        tls_context=context,
        require_starttls=True,
        ready_timeout=30,
    )
    controller.start()
    counts.connections = 0  # the Controller's own readiness check
    return controller


async def esp_sink(port: int, context: ssl.SSLContext, counts: Counts) -> asyncio.Server:
    """HTTP/1.1 with keep-alive over TLS; every POST answered as Postmark's /email answers."""

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        counts.connections += 1
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = 0
                for line in head.split(b"\r\n")[1:]:
                    name, _, value = line.partition(b":")
                    if name.strip().lower() == b"content-length":
                        length = int(value.strip())
                body = await reader.readexactly(length) if length else b""
                try:
                    to = json.loads(body).get("To", "")
                except ValueError:
                    to = ""
                counts.messages += head.startswith(b"POST")
                answer = json.dumps(
                    {
                        "To": to,
                        "SubmittedAt": "2026-01-01T00:00:00Z",
                        "MessageID": str(uuid.uuid4()),
                        "ErrorCode": 0,
                        "Message": "OK",
                    }
                ).encode()
                writer.write(
                    b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
                    + str(len(answer)).encode()
                    + b"\r\n\r\n"
                    + answer
                )
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError, ssl.SSLError, OSError):
            pass
        finally:
            with contextlib.suppress(Exception):
                writer.close()

    return await asyncio.start_server(serve, "127.0.0.1", port, ssl=context)


def serve(args: argparse.Namespace) -> None:
    cert, key = Path(args.cert), Path(args.key)
    context = server_context(cert, key)
    smtp_counts, esp_counts = Counts(), Counts()
    controller = smtp_sink(args.smtp_port, context, smtp_counts)
    delay = args.delay_ms / 1000

    async def main() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        loop.add_signal_handler(signal.SIGTERM, stop.set)
        loop.add_signal_handler(signal.SIGINT, stop.set)
        esp = await esp_sink(args.esp_port, context, esp_counts)
        proxies = [
            DelayProxy(args.smtp_proxy_port, ("127.0.0.1", args.smtp_port), delay),
            DelayProxy(args.esp_proxy_port, ("127.0.0.1", args.esp_port), delay),
        ]
        for proxy in proxies:
            await proxy.start()
        print("link ready", flush=True)
        reported = ""
        while not stop.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), 1)
            line = (
                f"counts smtp messages={smtp_counts.messages} "
                f"connections={smtp_counts.connections} esp messages={esp_counts.messages} "
                f"connections={esp_counts.connections}"
            )
            if line != reported:
                print(line, flush=True)
                reported = line
        esp.close()
        for proxy in proxies:
            proxy.close()

    try:
        asyncio.run(main())
    finally:
        controller.stop()


# --- the plain programs ------------------------------------------------------------------------


@dataclass(frozen=True)
class PlainRun:
    kind: str  # smtp or esp
    messages: int
    senders: int
    seconds: float

    @property
    def per_second(self) -> float:
        return self.messages / self.seconds if self.seconds > 0 else 0.0


def _sender(
    kind: str, port: int, cert: str, index: int, count: int, ready: Any, errors: Any
) -> None:
    """One sender of a plain program, in a process of its own (as the engine's pool processes
    are): connect, wait for the others, send `count` messages over the one connection."""
    try:
        send = _smtp_sender if kind == "smtp" else _esp_sender
        send(port, cert, index, count, ready)
    except BaseException as exc:
        errors.put(f"{type(exc).__name__}: {exc}")
        with contextlib.suppress(threading.BrokenBarrierError):
            ready.abort()


def _smtp_sender(port: int, cert: str, index: int, count: int, ready: Any) -> None:
    context = ssl.create_default_context(cafile=cert)
    with smtplib.SMTP("127.0.0.1", port, timeout=30) as smtp:
        smtp.starttls(context=context)
        smtp.ehlo()
        ready.wait(timeout=60)
        for i in range(count):
            message = EmailMessage()
            message["From"] = "notifications@notiflow.local"
            message["To"] = "ann@example.com"
            message["Subject"] = "Hello Ann from Bench"
            message["Message-ID"] = f"<plain-{index}-{i}@notiflow.local>"
            message.set_content("Hi Ann, your plan is pro.")
            smtp.send_message(message)


def _esp_sender(port: int, cert: str, index: int, count: int, ready: Any) -> None:
    import requests

    url = f"https://127.0.0.1:{port}/email"
    headers = {"X-Postmark-Server-Token": "bench", "Accept": "application/json"}
    with requests.Session() as session:
        # verify per request: REQUESTS_CA_BUNDLE in the environment would win over the session's
        session.get(f"https://127.0.0.1:{port}/", timeout=30, verify=cert)  # connected first
        ready.wait(timeout=60)
        for i in range(count):
            response = session.post(
                url,
                json={
                    "From": "notifications@notiflow.local",
                    "To": "ann@example.com",
                    "Subject": "Hello Ann from Bench",
                    "TextBody": "Hi Ann, your plan is pro.",
                    "Headers": [
                        {"Name": "Message-ID", "Value": f"<plain-{index}-{i}@notiflow.local>"}
                    ],
                },
                headers=headers,
                timeout=30,
                verify=cert,
            )
            response.raise_for_status()
            response.json()


def plain_run(kind: str, port: int, cert: Path, *, messages: int, senders: int) -> PlainRun:
    """The plain program over the link: `senders` processes (as many as the engine's pool), each
    with one kept connection (smtplib after STARTTLS; a requests.Session posting what anymail
    posts to Postmark's /email), sharing `messages`; timed from all connected to the last sent."""
    import multiprocessing

    context = multiprocessing.get_context("spawn")
    ready = context.Barrier(senders + 1)
    errors = context.Queue()
    counts = [messages // senders + (1 if i < messages % senders else 0) for i in range(senders)]
    processes = [
        context.Process(
            target=_sender, args=(kind, port, str(cert), i, counts[i], ready, errors), daemon=True
        )
        for i in range(senders)
    ]
    for process in processes:
        process.start()
    with contextlib.suppress(threading.BrokenBarrierError):  # a sender failed: raised below
        ready.wait(timeout=120)
    started = time.monotonic()
    for process in processes:
        process.join(timeout=600)
    seconds = time.monotonic() - started
    if not errors.empty() or any(p.exitcode != 0 for p in processes):
        raise RuntimeError(f"plain {kind} sender failed: {errors.get(timeout=1)}")
    return PlainRun(kind, messages, senders, seconds)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.link")
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("serve", help="the sinks and their delaying proxies")
    run.add_argument("--cert", required=True)
    run.add_argument("--key", required=True)
    run.add_argument("--delay-ms", type=float, default=10)
    for name in ("smtp-port", "esp-port", "smtp-proxy-port", "esp-proxy-port"):
        run.add_argument(f"--{name}", type=int, required=True)
    args = parser.parse_args(argv)
    serve(args)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

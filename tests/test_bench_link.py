"""The bench's link (bench/link.py): the delay its proxy adds, in order, each way; and the sinks
speaking TLS with the certificate the senders are told to trust."""

from __future__ import annotations

import asyncio
import smtplib
import socket
import ssl
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.link import (
    Counts,
    DelayProxy,
    certificate,
    esp_sink,
    plain_run,
    server_context,
    smtp_sink,
)

DELAY = 0.010


class Loop:
    """An asyncio loop in a thread: the proxy and an echo server run on it."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    def run(self, coro):  # type: ignore[no-untyped-def]
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout=30)

    def stop(self, *servers: asyncio.Server | DelayProxy) -> None:
        async def shutdown() -> None:
            for server in servers:
                server.close()
            current = asyncio.current_task()
            tasks = [task for task in asyncio.all_tasks() if task is not current]
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

        self.run(shutdown())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=5)
        self.loop.close()


async def _echo(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    while data := await reader.read(65536):
        writer.write(data)
        await writer.drain()
    writer.close()


@pytest.fixture
def link() -> Iterator[tuple[int, int]]:
    """(the echo server's port, the proxy's port in front of it)."""
    loop = Loop()

    async def start() -> tuple[asyncio.Server, DelayProxy]:
        echo = await asyncio.start_server(_echo, "127.0.0.1", 0)
        proxy = DelayProxy(0, ("127.0.0.1", echo.sockets[0].getsockname()[1]), DELAY)
        await proxy.start()
        return echo, proxy

    echo, proxy = loop.run(start())
    yield echo.sockets[0].getsockname()[1], proxy.listen_port
    loop.stop(echo, proxy)


def round_trips(port: int, count: int) -> list[float]:
    """Seconds of each of `count` one-byte round trips on one connection."""
    times = []
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        for _ in range(count):
            started = time.monotonic()
            sock.sendall(b"x")
            assert sock.recv(16) == b"x"
            times.append(time.monotonic() - started)
    return times


def test_the_proxy_adds_its_delay_each_way_to_every_round_trip(link):
    direct_port, proxy_port = link
    direct = sorted(round_trips(direct_port, 20))
    proxied = sorted(round_trips(proxy_port, 20))
    # Never less than the two delays; at best within a few ms of them (a loaded machine adds
    # its scheduling to both sides, and to the proxy's timers: the fastest trips are compared).
    assert proxied[0] >= 2 * DELAY
    added = proxied[0] - direct[0]
    assert 2 * DELAY - 0.001 <= added < 2 * DELAY + 0.015, added


def test_the_proxy_keeps_the_order_and_delays_a_burst_once_not_per_chunk(link):
    _, proxy_port = link
    chunks = [f"{i:04d}".encode() for i in range(200)]
    with socket.create_connection(("127.0.0.1", proxy_port), timeout=5) as sock:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        started = time.monotonic()
        for chunk in chunks:
            sock.sendall(chunk)
        received = b""
        while len(received) < 800:
            received += sock.recv(65536)
        elapsed = time.monotonic() - started
    assert received == b"".join(chunks)
    assert 2 * DELAY <= elapsed < 0.5  # a pipeline: 200 chunks do not cost 200 delays


def test_the_sinks_speak_tls_with_the_certificate_the_senders_trust(tmp_path: Path):
    cert, key = certificate(tmp_path)
    context = server_context(cert, key)
    smtp_counts, esp_counts = Counts(), Counts()
    ports = [_free_port(), _free_port()]
    controller = smtp_sink(ports[0], context, smtp_counts)
    loop = Loop()
    esp = loop.run(esp_sink(ports[1], context, esp_counts))
    try:
        for kind, port in zip(("smtp", "esp"), ports, strict=True):
            run = plain_run(kind, port, cert, messages=6, senders=2)
            assert run.messages == 6 and run.per_second > 0
        assert (smtp_counts.messages, smtp_counts.connections) == (6, 2)
        with smtplib.SMTP("127.0.0.1", ports[0], timeout=10) as smtp:  # as production relays do
            smtp.starttls(context=ssl.create_default_context(cafile=cert))
            smtp.ehlo()
            assert smtp.has_extn("pipelining")
        assert (esp_counts.messages, esp_counts.connections) == (6, 2)
    finally:
        loop.stop(esp)
        controller.stop()


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])

"""The in-app inbox's streams (issue 35; docs/design/inbox.md, "In-app inbox"): intake's throughput
over HTTP with STREAMS open `GET /api/inbox/stream/` connections on the same gunicorn, against
without them, in the same run; and what the open streams cost the web process: resident memory
per stream, and database connections (none: a stream holds none while idle).

The streams are raw asyncio sockets in this process (a few KB each), each a recipient of its own,
opened before an intake run and held through it; each must have answered its first event (the
counts) before it counts as open. Intake runs without and with them alternate STREAM_ROUNDS times
(bench/__main__.py), each metered, so the figure is a ratio of medians and of CPU per request.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

STREAMS = 1000
OPEN_CONCURRENCY = 50
# Alternations of intake without and with the streams open, in one bench round: one pair was
# at the mercy of the machine's other load (issue 35's figure read 60 % one run, 95 % the next).
STREAM_ROUNDS = 3


@dataclass(frozen=True)
class StreamsRun:
    streams: int
    opened: int
    open_seconds: float
    rss_before_kb: int
    rss_after_kb: int
    backends_before: int
    backends_after: int

    @property
    def kb_per_stream(self) -> float:
        return (self.rss_after_kb - self.rss_before_kb) / self.opened if self.opened else 0.0

    def __str__(self) -> str:
        return (
            f"{self.opened}/{self.streams} streams open in {self.open_seconds:.1f}s; web RSS "
            f"{self.rss_before_kb / 1024:.0f} -> {self.rss_after_kb / 1024:.0f} MB "
            f"({self.kb_per_stream:.1f} KB a stream); database connections "
            f"{self.backends_before} -> {self.backends_after}"
        )


def rss_kb(pids: list[int]) -> int:
    """The resident memory of `pids`, summed (VmRSS)."""
    total = 0
    for pid in pids:
        try:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except FileNotFoundError:
            continue
    return total


async def _open(port: int, header: str) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(
        f"GET /api/inbox/stream/ HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: {header}\r\n\r\n".encode()
    )
    await writer.drain()
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 30)
    if not head.startswith(b"HTTP/1.1 200"):
        raise RuntimeError(head.split(b"\r\n", 1)[0].decode())
    await asyncio.wait_for(reader.readuntil(b"event: counts"), 30)  # its first event
    return reader, writer


class OpenStreams:
    """STREAMS streams held open on a loop of their own thread while the caller measures."""

    def __init__(self, *, port: int, headers: list[str]):
        self.port = port
        self.headers = headers
        self.loop = asyncio.new_event_loop()
        self.writers: list[asyncio.StreamWriter] = []
        self.failures = 0

    def open(self) -> int:
        import threading

        threading.Thread(target=self.loop.run_forever, daemon=True).start()
        return asyncio.run_coroutine_threadsafe(self._open_all(), self.loop).result()

    async def _open_all(self) -> int:
        limit = asyncio.Semaphore(OPEN_CONCURRENCY)

        async def one(header: str) -> None:
            async with limit:
                try:
                    _, writer = await _open(self.port, header)
                    self.writers.append(writer)
                except (OSError, RuntimeError, TimeoutError):
                    self.failures += 1

        await asyncio.gather(*(one(header) for header in self.headers))
        return len(self.writers)

    def close(self) -> None:
        async def close_all() -> None:
            for writer in self.writers:
                writer.close()

        asyncio.run_coroutine_threadsafe(close_all(), self.loop).result()
        self.loop.call_soon_threadsafe(self.loop.stop)


def streams_opened(
    streams: OpenStreams,
    *,
    web_pids: Callable[[], list[int]],
    backends: Callable[[], list[int]],
) -> StreamsRun:
    """Open `streams` and say what they cost the web process (the caller closes them)."""
    import time

    rss_before, backends_before = rss_kb(web_pids()), len(backends())
    started = time.monotonic()
    opened = streams.open()
    open_seconds = time.monotonic() - started
    time.sleep(2)  # let the web process settle before its memory is read
    return StreamsRun(
        streams=len(streams.headers),
        opened=opened,
        open_seconds=open_seconds,
        rss_before_kb=rss_before,
        rss_after_kb=rss_kb(web_pids()),
        backends_before=backends_before,
        backends_after=len(backends()),
    )

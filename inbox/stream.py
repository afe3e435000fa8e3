"""`GET /api/inbox/stream/`: the recipient's inbox as Server-Sent Events (docs/design/inbox.md,
"In-app inbox").

Built as `?wait=` is (triggers/waiting.py): no thread and no database connection is held per
open stream. Under the web process's ASGI adapter (common/asgi.py) the view answers at once
with what is new since the client's `Last-Event-ID` (or just the counts, on a first connect) and
notes the recipient and the position in the request's `StreamSlot` (an object in the WSGI
environ under STREAM_ENVIRON_KEY, which no header can set). The adapter sends that answer and
keeps the response open; it waits on this process's one `InboxListener` (a Redis pub/sub
subscription, inbox/live.py) and, when the recipient's inbox changed, sends the request to
Django again with the slot, in a pool thread: the view reads what is new after the slot's
position, and the adapter writes it to the stream. Between changes a comment line every
HEARTBEAT_SECONDS keeps proxies from closing it. Per stream the process holds an asyncio.Event,
the request's scope and the slot (its position and at most RECENT_IDS message ids).

Every event's `id` is the feed position after it; a client that reconnects with it as
`Last-Event-ID` gets every message stored after that position, so it misses nothing. They come
in batches of at most BATCH_MAX, oldest first: while an answer is a full batch the adapter asks
the view for the next at once, without waiting for a change, and the counts follow the last
(the view ends a batch and its request; no connection or cursor is held while a batch is sent).
On the first read after a change a message is also looked for back to SLACK_SECONDS before the
position (a message's time is its statement's start, and a step that started earlier may commit
later), the ids already sent left out; a client that reconnects may see one of those again and
keeps it once by its id (the widget does).

Without the adapter (Django's test client, runserver) the view answers the same first events (one
batch) and the response ends; an EventSource-style client reconnects from the last id.

A web process holds at most NOTIFLOW_INBOX_STREAMS_PER_RECIPIENT open streams of one recipient
(the listener counts them): one more is answered 429 and the open ones are left alone, so a
leaked token cannot close the person's own tabs by opening streams (docs/security/recipients.md, "The
recipient token"). The count is the process's: the streams are what a process pays for.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import redis.asyncio as aioredis
from django.db.models import Q

from common.metrics import stream_open_observe
from inbox.live import channel_of
from inbox.models import InboxMessage
from inbox.services import cursor_of, cursor_read, inbox_counts, message_json

logger = logging.getLogger("notiflow.inbox")

STREAM_ENVIRON_KEY = "notiflow.inbox_stream"
HEARTBEAT_SECONDS = 15.0
SLACK_SECONDS = 5.0
RECENT_IDS = 100
# At most this many messages in one answer of the view: more are sent in further answers, one
# after another, each read in a pool thread of its own (no connection held while one is sent).
BATCH_MAX = 50
RECONNECT_SECONDS = 1.0


@dataclass
class StreamSlot:
    """The adapter's side of a stream request (see the module). `redispatch` False: the first
    answer; True: the request sent again after a change, with the position reached so far."""

    redispatch: bool = False
    recipient: str | None = None
    cursor: str = ""
    recent: list[str] = field(default_factory=list)
    # The last answer was a full batch: the next is sent at once, without waiting for a change.
    more: bool = False

    def carry(self, before: StreamSlot) -> None:
        """Take the position of the stream's slot `before` (for a redispatch)."""
        self.cursor, self.recent, self.more = before.cursor, list(before.recent), before.more


def stream_events(recipient: str, slot: StreamSlot) -> bytes:
    """The events after `slot`'s position (moved on): at most BATCH_MAX new messages, then the
    counts once caught up (`slot.more` False; True: a full batch, more may follow)."""
    mine = InboxMessage.objects.filter(recipient=recipient)
    messages: list[InboxMessage] = []
    if slot.cursor:
        created_at, message_id = cursor_read(slot.cursor)
        after = Q(created_at__gt=created_at) | Q(created_at=created_at, id__gt=message_id)
        if not slot.more:  # the first read of a change: a step may commit after a later one
            slack = Q(created_at__gte=created_at - timedelta(seconds=SLACK_SECONDS))
            late = mine.filter(slack & ~after).exclude(id__in=[message_id, *slot.recent])
            messages = list(late.order_by("created_at", "id")[:BATCH_MAX])
        batch = list(mine.filter(after).order_by("created_at", "id")[:BATCH_MAX])
    elif slot.redispatch:  # the inbox was empty when the stream opened: all of it is new
        batch = list(mine.exclude(id__in=slot.recent).order_by("created_at", "id")[:BATCH_MAX])
    else:  # a first connect: from the newest message on (the client read the feed)
        batch = []
        newest = mine.order_by("-created_at", "-id")
        if first := newest.first():
            slot.cursor = cursor_of(first)
            since = first.created_at - timedelta(seconds=SLACK_SECONDS)
            shown = newest.filter(created_at__gte=since).values_list("id", flat=True)
            slot.recent = [str(value) for value in shown[:RECENT_IDS]]
    slot.more = len(batch) == BATCH_MAX
    parts: list[str] = []
    for message in [*messages, *batch]:
        slot.recent = [*slot.recent, str(message.pk)][-RECENT_IDS:]
        if not slot.cursor or cursor_read(cursor_of(message)) > cursor_read(slot.cursor):
            slot.cursor = cursor_of(message)
        parts.append(_event("message", message_json(message), slot.cursor))
    if not slot.more:
        parts.append(_event("counts", inbox_counts(recipient=recipient).as_dict(), slot.cursor))
    return "".join(parts).encode()


def _event(name: str, data: dict[str, Any], event_id: str) -> str:
    lines = [f"event: {name}", f"data: {json.dumps(data, separators=(',', ':'))}"]
    if event_id:
        lines.insert(0, f"id: {event_id}")
    return "\n".join(lines) + "\n\n"


async def stream_follow(
    *,
    slot: StreamSlot,
    headers: list[tuple[bytes, bytes]],
    first: bytes,
    again: Callable[[StreamSlot], Awaitable[tuple[StreamSlot, bytes] | None]],
    listener: InboxListener,
    heartbeat: float,
    receive: Callable[[], Awaitable[dict[str, Any]]],
    send: Callable[[dict[str, Any]], Awaitable[None]],
) -> None:
    """Serve one open stream on the ASGI adapter (see the module): `first`, then, each time
    `listener` says the recipient's inbox changed, what `again` (the view, in a pool thread)
    answers after the slot's position, again at once while an answer was a full batch; a
    comment line every `heartbeat` seconds between; until
    the client leaves or `again` refuses (None: the token no longer valid, the person erased).
    A 429 instead when the recipient holds as many streams here as the listener allows."""
    assert slot.recipient is not None
    recipient = slot.recipient
    changed = listener.subscribe(recipient)
    if changed is None:
        await _too_many(send, headers, listener.per_recipient)
        return
    stream_open_observe(stream="inbox", change=1)
    gone = asyncio.ensure_future(receive())  # once the body is read: only a disconnect
    try:
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        chunk = first
        while True:
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
            if gone.done():
                return
            if not slot.more:  # caught up: wait for a change
                woken = asyncio.ensure_future(changed.wait())
                done, _ = await asyncio.wait(
                    {woken, gone}, timeout=heartbeat, return_when=asyncio.FIRST_COMPLETED
                )
                woken.cancel()
                if gone in done:
                    return
                if woken not in done:
                    chunk = b": keep-alive\n\n"
                    continue
                changed.clear()
            answered = await again(slot)
            if answered is None:
                break
            slot, chunk = answered
        await send({"type": "http.response.body", "body": b"", "more_body": False})
    finally:
        gone.cancel()
        listener.unsubscribe(recipient, changed)
        stream_open_observe(stream="inbox", change=-1)


async def _too_many(
    send: Callable[[dict[str, Any]], Awaitable[None]],
    headers: list[tuple[bytes, bytes]],
    limit: int,
) -> None:
    detail = (
        f"this recipient already has {limit} streams open here "
        "(NOTIFLOW_INBOX_STREAMS_PER_RECIPIENT); close one, or read GET /api/inbox/"
    )
    cors = [(name, value) for name, value in headers if name.startswith(b"access-control-")]
    await send(
        {
            "type": "http.response.start",
            "status": 429,
            "headers": [*cors, (b"content-type", b"application/json")],
        }
    )
    await send({"type": "http.response.body", "body": json.dumps({"detail": detail}).encode()})


class InboxListener:
    """One web process's subscription to the inbox's Redis channel (inbox/live.py): wakes the
    open streams of the recipient a change names. When the subscription breaks it wakes every
    stream (each reads what it may have missed) and subscribes again. It holds at most
    `per_recipient` streams of one recipient."""

    def __init__(self, *, url: str, per_recipient: int):
        self.url = url
        self.per_recipient = per_recipient
        self._streams: dict[str, set[asyncio.Event]] = {}
        self._task: asyncio.Task[None] | None = None
        self.messages = 0  # for tests and measurements

    @property
    def streams(self) -> int:
        return sum(len(events) for events in self._streams.values())

    def subscribe(self, recipient: str) -> asyncio.Event | None:
        """The event a change of `recipient`'s inbox sets, for a new stream; None when the
        recipient already holds `per_recipient` streams here."""
        if len(self._streams.get(recipient, ())) >= self.per_recipient:
            return None
        event = asyncio.Event()
        self._streams.setdefault(recipient, set()).add(event)
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._run(), name="inbox-listen")
        return event

    def unsubscribe(self, recipient: str, event: asyncio.Event) -> None:
        events = self._streams.get(recipient)
        if events is not None:
            events.discard(event)
            if not events:
                del self._streams[recipient]

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    def _wake(self, recipient: str | None) -> None:
        targets = (
            self._streams.values() if recipient is None else [self._streams.get(recipient, ())]
        )
        for events in targets:
            for event in events:
                event.set()

    async def _run(self) -> None:
        while True:
            client = aioredis.from_url(self.url)
            try:
                async with client.pubsub(ignore_subscribe_messages=True) as pubsub:
                    await pubsub.subscribe(channel_of(self.url))
                    self._wake(None)  # a change while not subscribed: everyone reads again
                    async for message in pubsub.listen():
                        if message.get("type") == "message":
                            self.messages += 1
                            self._wake(message["data"].decode(errors="replace"))
            except asyncio.CancelledError:
                raise
            except Exception:
                logger.warning("inbox streams: the Redis subscription failed", exc_info=True)
            finally:
                with contextlib.suppress(Exception):
                    await client.aclose()
            self._wake(None)
            await asyncio.sleep(RECONNECT_SECONDS)

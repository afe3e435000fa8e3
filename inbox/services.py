"""The inbox's rules (docs/design/inbox.md, "In-app inbox"): a recipient's feed, newest first with a
cursor; their counts; marking messages seen, read, unread, archived or unarchived, announcing
message.seen, message.read and message.archived (events.catalog) in the mark's transaction; and
erasing a person's messages. Every function takes the recipient's key: no function reads a
message of another recipient.

After a change commits, the recipient's open streams hear of it (inbox/live.py), and so do the
hooks a room above registered (inbox.hooks.MARKED_HOOKS: waits/ posts message.seen and
message.read for the runs waiting for them); the inbox imports none of them.

A recipient's inbox tokens carry a generation (inbox/tokens.py): erasing the person and
rotating their tokens raise it, revoking every token issued before.
"""

from __future__ import annotations

import base64
import binascii
import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import connection, transaction
from django.db.models import Q, QuerySet

from common.db import fetchone_prepared
from events import catalog
from events.services.outbox import Announcement, events_record
from inbox import live
from inbox.hooks import MARKED_HOOKS
from inbox.models import InboxMessage
from inbox.sql import (
    COUNTS_SQL,
    GENERATION_RAISE_SQL,
    GENERATION_SQL,
    MARK_RETURNS,
    MARKS,
    mark_sql,
)
from inbox.tokens import generation_digest, recipient_token
from recipients.models import Recipient
from triggers.models import TriggerInstance
from workflows.nodes.inapp import INAPP_CHANNEL

STATUSES = ("all", "unread", "unseen")
ARCHIVED = ("false", "true", "all")
MARK_NAMES = tuple(MARKS)
MARK_ALL_NAMES = ("seen", "read", "archived")
# The event each mark announces (the marks that undo one announce nothing).
MARK_EVENTS = {
    "seen": catalog.MESSAGE_SEEN,
    "read": catalog.MESSAGE_READ,
    "archived": catalog.MESSAGE_ARCHIVED,
}
PAGE_SIZE = 20
PAGE_MAX = 100
MARK_MAX_IDS = 100

SHOWN_FIELDS = (
    "id",
    "title",
    "body",
    "body_html",
    "action_url",
    "data",
    "category",
    "workflow_key",
    "created_at",
    "seen_at",
    "read_at",
    "archived_at",
)


class CursorInvalid(ValueError):
    pass


@dataclass(frozen=True)
class Counts:
    unseen: int
    unread: int
    total: int

    def as_dict(self) -> dict[str, int]:
        return {"unseen": self.unseen, "unread": self.unread, "total": self.total}


@dataclass(frozen=True)
class FeedPage:
    messages: list[InboxMessage]
    next_cursor: str | None


def cursor_of(message: InboxMessage) -> str:
    """The opaque position after `message` in a feed (newest first)."""
    raw = f"{message.created_at.isoformat()}|{message.pk}".encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def cursor_read(cursor: str) -> tuple[datetime, str]:
    """The (created_at, id) a cursor names; CursorInvalid for anything cursor_of did not make."""
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        created, _, message_id = raw.partition("|")
        return datetime.fromisoformat(created), str(uuid.UUID(message_id))
    except (binascii.Error, UnicodeDecodeError, ValueError) as exc:
        raise CursorInvalid("is not a cursor this feed gave") from exc


def inbox_feed(
    *,
    recipient: str,
    status: str = "all",
    archived: str = "false",
    category: str = "",
    tenant: str = "",
    cursor: str = "",
    limit: int = PAGE_SIZE,
) -> FeedPage:
    """One page of the recipient's messages, newest first, after `cursor`; with `tenant`, only
    those of the person's runs for that tenant (the runs' `tenant`, docs/tenants.md)."""
    rows: QuerySet[InboxMessage] = InboxMessage.objects.filter(recipient=recipient)
    if status == "unread":
        rows = rows.filter(read_at__isnull=True)
    elif status == "unseen":
        rows = rows.filter(seen_at__isnull=True)
    if archived != "all":
        rows = rows.filter(archived_at__isnull=archived == "false")
    if category:
        rows = rows.filter(category=category)
    if tenant:
        runs = TriggerInstance.objects.filter(recipient=recipient, tenant=tenant)
        rows = rows.filter(trigger_id__in=runs.values("id"))
    if cursor:
        created_at, message_id = cursor_read(cursor)
        rows = rows.filter(
            Q(created_at__lt=created_at) | Q(created_at=created_at, id__lt=message_id)
        )
    page = list(rows.order_by("-created_at", "-id")[: limit + 1])
    more = len(page) > limit
    page = page[:limit]
    return FeedPage(page, cursor_of(page[-1]) if more and page else None)


def inbox_counts(*, recipient: str) -> Counts:
    """The recipient's messages not archived: unseen, unread and in all."""
    with connection.cursor() as cursor:
        cursor.execute(COUNTS_SQL, {"recipient": recipient})
        unseen, unread, total = cursor.fetchone()
    return Counts(unseen=unseen, unread=unread, total=total)


def message_json(message: InboxMessage) -> dict[str, Any]:
    """A message as the feed API shows it."""
    shown: dict[str, Any] = {}
    for name in SHOWN_FIELDS:
        value = getattr(message, name)
        if isinstance(value, datetime):
            value = value.isoformat().replace("+00:00", "Z")
        shown[name] = str(value) if name == "id" else value
    return shown


def inbox_mark(*, recipient: str, mark: str, ids: list[str] | None = None) -> list[str]:
    """Mark the recipient's messages `ids` (None: every one not archived) as `mark` (MARKS);
    the ids of those it changed. Ids of another recipient's messages, or of none, change
    nothing. Announces the mark's event for each changed message, in the same transaction;
    once committed, tells MARKED_HOOKS."""
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute(
                mark_sql(mark, every=ids is None), {"recipient": recipient, "ids": ids or []}
            )
            changed = [dict(zip(MARK_RETURNS.split(", "), row, strict=True)) for row in cursor]
        if mark in MARK_EVENTS and changed:
            events_record([_announcement(MARK_EVENTS[mark], recipient, row) for row in changed])
        if changed:
            transaction.on_commit(lambda: live.inbox_changed(recipient))
    if changed:
        for hook in MARKED_HOOKS:
            hook(mark, changed)
    return [str(row["id"]) for row in changed]


def _announcement(kind: str, recipient: str, row: dict[str, Any]) -> Announcement:
    message = {
        "id": str(row["id"]),
        "channel": INAPP_CHANNEL,
        "recipient": recipient,
        "node_id": row["node_id"],
        "category": row["category"],
        **{
            name: row[name].isoformat() if row[name] else None
            for name in ("seen_at", "read_at", "archived_at")
        },
    }
    return Announcement(
        type=kind,
        trigger_id=row["trigger_id"],
        workflow_key=row["workflow_key"],
        data={"message": message},
    )


def inbox_erase(recipient_key: str) -> dict[str, int]:
    """Delete every in-app message of a person and revoke their inbox tokens (the recipients
    API's erase calls this, in its transaction: recipients.hooks.ERASERS); how many messages
    there were, as `inbox_messages`. Their open streams hear of it after commit, read again, are
    refused and end."""
    deleted, _ = InboxMessage.objects.filter(recipient=recipient_key).delete()
    _generation_raise(recipient_key)
    transaction.on_commit(lambda: live.inbox_changed(recipient_key))
    return {"inbox_messages": deleted}


def token_generation_current(recipient_key: str) -> int:
    """The generation `recipient_key`'s inbox tokens must carry (one primary-key lookup)."""
    row = fetchone_prepared(GENERATION_SQL, {"inb_digest": generation_digest(recipient_key)})
    return int(row[0]) if row else 0


def inbox_token(recipient_key: str) -> str:
    """`recipient_key`'s inbox token of the current generation (the recipient need not exist)."""
    return recipient_token(recipient_key, token_generation_current(recipient_key))


def inbox_token_rotate(*, recipient_key: str) -> str | None:
    """Revoke every inbox token of the recipient `recipient_key` and return one of the new
    generation; None when there is no such recipient (so that the generations kept are one per
    person at most). Their open streams hear of it after commit and end."""
    with transaction.atomic():
        if not Recipient.objects.filter(key=recipient_key).exists():
            return None
        generation = _generation_raise(recipient_key)
        transaction.on_commit(lambda: live.inbox_changed(recipient_key))
    return recipient_token(recipient_key, generation)


def _generation_raise(recipient_key: str) -> int:
    row = fetchone_prepared(GENERATION_RAISE_SQL, {"inb_digest": generation_digest(recipient_key)})
    assert row is not None  # an upsert returns its row
    return int(row[0])

"""Topics and their subscribers (docs/design/recipients.md, "Topics and fan-out").

A topic is an audience keyed by the client's own name (`project-42`); a subscription ties one
recipient to it. Subscribing and unsubscribing take up to TOPIC_BATCH_MAX recipient keys at a
time and answer for each, in request order: a key no recipient has is that item's 404, never the
whole call's. The subscribers are read in the order of the subscription's id, a page at a time,
behind an opaque cursor (keyset pagination on the (topic, id) index: a page costs the same at
the millionth subscriber as at the first, and a subscription added meanwhile is never shown
twice).
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from django.db import connection, transaction
from django.db.models import Count, IntegerField, OuterRef, QuerySet, Subquery, Value
from django.db.models.functions import Coalesce

from recipients.models import Recipient, Topic, TopicSubscription
from recipients.sql import SUBSCRIBE_SQL, UNSUBSCRIBE_SQL

# The most recipient keys one subscribe or unsubscribe call may name.
TOPIC_BATCH_MAX = 1000
SUBSCRIBERS_PAGE_DEFAULT = 100
SUBSCRIBERS_PAGE_MAX = 1000
_CURSOR_PREFIX = "s1:"


@dataclass(frozen=True)
class ItemResult:
    """What happened to one recipient key of a subscribe or unsubscribe call: `status` 201
    (subscribed now), 200 (subscribed already / unsubscribed, see `changed`) or 404 (no such
    recipient)."""

    recipient: str
    status: int
    subscribed: bool | None = None
    changed: bool = False


@dataclass(frozen=True)
class SubscriberPage:
    subscribers: list[tuple[str, datetime]]  # (recipient key, subscribed at)
    next_cursor: str | None


class InvalidCursor(ValueError):
    """The cursor is not one this API gave out."""


def topic_put(*, key: str, name: str, description: str) -> tuple[Topic, bool]:
    """Create the topic, or replace its name and description; (topic, created)."""
    return Topic.objects.update_or_create(
        key=key, defaults={"name": name, "description": description}
    )


def topic_delete(*, key: str) -> int | None:
    """Delete the topic and its subscriptions (not the recipients); how many subscriptions went,
    or None when there is no such topic."""
    with transaction.atomic():
        topic = Topic.objects.select_for_update().filter(key=key).first()
        if topic is None:
            return None
        removed, _ = TopicSubscription.objects.filter(topic=topic).delete()
        topic.delete()
    return removed


def topic_subscribe(*, topic: Topic, recipients: Sequence[str]) -> list[ItemResult]:
    """Subscribe each known recipient of `recipients` to `topic` (one INSERT for them all; an
    existing subscription is left as it is); a result per key, in order."""
    known = _known(recipients)
    with connection.cursor() as cursor:
        cursor.execute(SUBSCRIBE_SQL, {"topic": topic.key, "recipients": sorted(known)})
        added = {row[0] for row in cursor.fetchall()}
    return _results(recipients, known, changed=added, subscribed=True, new_status=201)


def topic_unsubscribe(*, topic: Topic, recipients: Sequence[str]) -> list[ItemResult]:
    """Remove the subscriptions of `recipients` to `topic` (one DELETE); a result per key, in
    order. A known recipient who was not subscribed is a 200 that changed nothing."""
    known = _known(recipients)
    with connection.cursor() as cursor:
        cursor.execute(UNSUBSCRIBE_SQL, {"topic": topic.key, "recipients": sorted(known)})
        removed = {row[0] for row in cursor.fetchall()}
    return _results(recipients, known, changed=removed, subscribed=False, new_status=200)


def _known(recipients: Sequence[str]) -> set[str]:
    return set(Recipient.objects.filter(key__in=set(recipients)).values_list("key", flat=True))


def _results(
    recipients: Sequence[str],
    known: set[str],
    *,
    changed: set[str],
    subscribed: bool,
    new_status: int,
) -> list[ItemResult]:
    """One result per key; a key named twice changed things the first time only."""
    results = []
    done: set[str] = set()
    for key in recipients:
        if key not in known:
            results.append(ItemResult(key, 404))
            continue
        now = key in changed and key not in done
        done.add(key)
        results.append(ItemResult(key, new_status if now else 200, subscribed, changed=now))
    return results


def topic_subscriber_count(topic: Topic) -> int:
    return TopicSubscription.objects.filter(topic=topic).count()


def topics_counted() -> QuerySet[Topic]:
    """Every topic by key, each with `subscribers` (its count): a subquery per topic of the
    page, on the (topic, id) index, rather than a count of every topic's subscriptions."""
    count = (
        TopicSubscription.objects.filter(topic=OuterRef("pk"))
        .order_by()
        .values("topic")
        .annotate(n=Count("*"))
        .values("n")
    )
    return Topic.objects.annotate(
        subscribers=Coalesce(Subquery(count, output_field=IntegerField()), Value(0))
    ).order_by("key")


def topics_of(*, recipient: str) -> QuerySet[TopicSubscription]:
    """Person `recipient`'s subscriptions with their topics, by topic key."""
    return (
        TopicSubscription.objects.filter(recipient_id=recipient)
        .select_related("topic")
        .order_by("topic_id")
    )


def topic_subscribers(*, topic: Topic, cursor: str | None, limit: int) -> SubscriberPage:
    """A page of the topic's subscribers after `cursor` (None: from the first), oldest
    subscription first; `next_cursor` is None on the last page. InvalidCursor for a cursor
    this API did not give."""
    after = cursor_decode(cursor) if cursor is not None else 0
    rows = list(
        TopicSubscription.objects.filter(topic=topic, id__gt=after)
        .order_by("id")
        .values_list("id", "recipient_id", "created_at")[: limit + 1]
    )
    more = len(rows) > limit
    rows = rows[:limit]
    next_cursor = cursor_encode(rows[-1][0]) if more else None
    return SubscriberPage([(key, at) for _, key, at in rows], next_cursor)


def cursor_encode(subscription_id: int) -> str:
    """An opaque cursor: the clients keep it and give it back, nothing more."""
    return base64.urlsafe_b64encode(f"{_CURSOR_PREFIX}{subscription_id}".encode()).decode()


def cursor_decode(cursor: str) -> int:
    try:
        raw = base64.b64decode(cursor.encode("ascii"), altchars=b"-_", validate=True)
        text = raw.decode("ascii")
    except (binascii.Error, UnicodeError, ValueError):
        raise InvalidCursor("not a cursor this API gave") from None
    digits = text.removeprefix(_CURSOR_PREFIX)
    if not text.startswith(_CURSOR_PREFIX) or not digits.isdigit() or len(digits) > 18:
        raise InvalidCursor("not a cursor this API gave")
    return int(digits)

"""Telling open streams that a recipient's inbox changed (docs/design/inbox.md, "In-app inbox").

Redis pub/sub at NOTIFLOW_CACHE_URL, one channel for every recipient (`notiflow:inbox:<db>`) (the message is the
recipient's key): each web process keeps one subscription and hands a change to that
recipient's open streams, which then read what changed from PostgreSQL. Not PostgreSQL's
LISTEN/NOTIFY: a LISTEN outlives its transaction on its connection, which rule 14 forbids (any
transaction pooler must fit). A publish is a hint, sent after commit: one lost (Redis down, a
process killed between commit and publish) delays a stream until its next change or reconnect,
and loses nothing, since the stream reads the database, never the hint.
"""

from __future__ import annotations

import logging
from functools import lru_cache
from typing import Any
from urllib.parse import urlsplit

import redis
from django.conf import settings

logger = logging.getLogger("notiflow.inbox")

TIMEOUT_SECONDS = 0.5


def channel_of(url: str) -> str:
    """The channel at Redis `url`: named after its database, since a channel is the whole
    server's and two environments may share one server on different databases."""
    return f"notiflow:inbox:{urlsplit(url).path.strip('/') or '0'}"


@lru_cache(maxsize=4)
def _client(url: str) -> Any:
    return redis.Redis.from_url(
        url, socket_connect_timeout=TIMEOUT_SECONDS, socket_timeout=TIMEOUT_SECONDS
    )


def inbox_changed(recipient: str) -> None:
    """Publish that `recipient`'s inbox changed (call after commit). Never raises."""
    try:
        url = settings.NOTIFLOW_CACHE_URL
        _client(url).publish(channel_of(url), recipient.encode())
    except redis.RedisError as exc:
        logger.warning("inbox: could not publish a change of %r's inbox: %s", recipient, exc)

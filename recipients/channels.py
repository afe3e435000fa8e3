"""A person's push addresses, one at a time (docs/design/recipients.md, "Recipients"): a browser
subscription added to or removed from `channels.webpush`, a device token to or from
`channels.fcm`, each in one statement (recipients/sql.py), so that two devices registering at
once both stay, where a PATCH of `channels` replaces the whole list with what its caller read.

The channels are the push node types' address keys (workflows/nodes: `address_key`), and an
address is checked by its node type's rule, the one the worker applies before sending to it.
"""

from __future__ import annotations

import enum
import json
from typing import Any

from django.db import connection

from common.http import unknown_name_message
from recipients.models import Recipient
from recipients.sql import CHANNEL_ADDRESS_ADD_SQL, CHANNEL_ADDRESS_REMOVE_SQL
from workflows.nodes import NODE_TYPES
from workflows.nodes.pushing import PushingType


class Added(enum.Enum):
    NEW = "new"  # appended: 201
    PRESENT = "present"  # there already, as given: 200
    REPLACED = "replaced"  # an entry with its identity (a subscription's endpoint) replaced: 200


def address_channels() -> dict[str, PushingType]:
    """The channels that hold a list of addresses ({`channels` key: its node type}), in the
    registry's order: `webpush`, `fcm`."""
    return {kind.address_key: kind for kind in NODE_TYPES.values() if isinstance(kind, PushingType)}


def channel_problem(channel: str) -> str:
    if channel in address_channels():
        return ""
    return unknown_name_message(channel, address_channels(), "channel with a list of addresses")


def address_problem(channel: str, address: Any) -> str:
    """Why `address` cannot be one of `channel`'s (a known one), or ""."""
    return address_channels()[channel].address_problem(address)


def channel_address_add(*, key: str, channel: str, address: Any) -> Added | None:
    """Add `address` (checked: address_problem) to person `key`'s `channels[channel]`, in one
    statement safe under concurrent adds and removes; an entry of the same identity (a browser
    subscription's endpoint) is replaced. None when there is no such person."""
    params = {"rcp_key": key, "rcp_channel": channel, "rcp_address": json.dumps(address)}
    with connection.cursor() as cursor:
        cursor.execute(CHANNEL_ADDRESS_ADD_SQL, params)
        found, listed, same = cursor.fetchone()
    if not found:
        return None
    if listed:
        return Added.PRESENT
    return Added.REPLACED if same else Added.NEW


def channel_address_remove(*, key: str, channel: str, address: Any) -> bool | None:
    """Remove the entry of `address`'s identity from person `key`'s `channels[channel]`, in one
    statement; whether one was there, or None when there is no such person."""
    params = {"rcp_key": key, "rcp_channel": channel, "rcp_address": json.dumps(address)}
    with connection.cursor() as cursor:
        cursor.execute(CHANNEL_ADDRESS_REMOVE_SQL, params)
        if cursor.rowcount:
            return True
    return False if Recipient.objects.filter(key=key).exists() else None

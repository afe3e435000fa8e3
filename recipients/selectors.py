"""Reading recipients: the API's lists, and the one read a run's step makes of its recipient
(`recipient_for_run`, which the engine calls and preferences may share)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Q, QuerySet

from common.db import fetchall_prepared, fetchone_prepared
from recipients.models import PROFILE_FIELDS, Recipient
from recipients.sql import EXISTING_KEYS_SQL, FOR_RUN_COLUMNS, FOR_RUN_SQL

# What templates see as `recipient.*` (docs/design.md, "Recipients"), besides `id`.
CONTEXT_FIELDS = PROFILE_FIELDS


def recipient_list(*, search: str | None = None) -> QuerySet[Recipient]:
    """Recipients by key; `search` keeps those whose key or email starts with it, or whose
    name contains it (case-insensitive but for the key)."""
    recipients = Recipient.objects.all()
    if search:
        recipients = recipients.filter(
            Q(key__startswith=search) | Q(email__istartswith=search) | Q(name__icontains=search)
        )
    return recipients.order_by("key")


def recipient_keys_existing(keys: Iterable[str]) -> set[str]:
    """Those of `keys` that name a recipient, in one (prepared) query."""
    wanted = sorted(set(keys))
    if not wanted:
        return set()
    return {key for (key,) in fetchall_prepared(EXISTING_KEYS_SQL, {"rcp_keys": wanted})}


@dataclass(frozen=True)
class RunRecipient:
    """A run's recipient as a step sees it: `context` is the templates' `recipient` (`id` and
    CONTEXT_FIELDS; every field empty when the profile is gone: `found` False), `preferences`
    the person's switches."""

    key: str
    found: bool
    context: dict[str, Any]
    preferences: dict[str, Any] = field(default_factory=dict)


def recipient_for_run(key: str) -> RunRecipient:
    """The recipient of a run naming `key`, in one query. An erased (or never created) person
    reads as a profile with every field empty: a template still renders, a send without a `to`
    fails (or skips) naming the missing address."""
    found = fetchone_prepared(FOR_RUN_SQL, {"rcp_key": key})
    if found is None:
        empty = {name: {} if name in ("channels", "properties") else "" for name in CONTEXT_FIELDS}
        return RunRecipient(key=key, found=False, context={"id": key, **empty})
    row = dict(zip(FOR_RUN_COLUMNS, found, strict=True))
    for name in ("channels", "properties", "preferences"):
        if isinstance(row[name], str):  # Django's connection loads jsonb as text
            row[name] = json.loads(row[name])
    preferences = row.pop("preferences") or {}
    return RunRecipient(key=key, found=True, context={"id": key, **row}, preferences=preferences)

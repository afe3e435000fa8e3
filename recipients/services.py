"""Writing recipients (docs/design/recipients.md, "Recipients"): upserting profiles (PUT replaces, PATCH,
the bulk endpoint and identify-on-trigger merge) and erasing a person.

Profiles reach here validated (recipients/api.py's serializers hold the field rules of
recipients/validation.py); a Profile carries only the fields its request gave, so that a merge
changes those and no other.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from django.db import connection, transaction

from common.db import fetchall_prepared
from recipients.hooks import ERASERS
from recipients.models import Recipient, TopicSubscription
from recipients.sql import (
    CREATE_OR_COMPARE_SQL,
    FANOUT_EXCLUDE_SCRUB_SQL,
    JSON_FIELDS,
    UPSERT_MERGE_SQL,
    UPSERT_REPLACE_SQL,
    WHOLE_FIELDS,
)


@dataclass(frozen=True)
class Profile:
    """One person's profile as a request gave it: `key` and the fields given (`email`, `phone`,
    `name`, `locale`, `timezone`, `quiet_hours`, `channels`, `properties`); a field left out is absent."""

    key: str
    fields: dict[str, Any] = field(default_factory=dict)


class DuplicateKey(ValueError):
    """Two profiles of one upsert name the same key."""


def recipients_upsert(profiles: Sequence[Profile], *, merge: bool) -> dict[str, bool]:
    """Create each profile's recipient, or change the one that exists; {key: created}.

    `merge` (PATCH, bulk, identify-on-trigger) changes only the fields a profile gives, and
    `channels` and `properties` shallowly: each top-level key given replaces the stored one, a
    key given as null removes it, the others stay. Without `merge` (PUT) every field is set,
    those left out to their default. Preferences are never touched. One statement for them all
    (recipients/sql.py), safe under concurrent upserts of the same keys (a merge recomputes from
    the row as the other transaction left it); a key another transaction created during the
    statement is done by a second run of it. DuplicateKey when two profiles share a key.
    """
    if len({profile.key for profile in profiles}) != len(profiles):
        raise DuplicateKey("two profiles name the same key")
    items = [_item(profile, merge=merge) for profile in profiles]
    statement = UPSERT_MERGE_SQL if merge else UPSERT_REPLACE_SQL
    return {key: created for key, (created,) in _done(statement, items).items()}


def recipients_create_or_compare(profiles: Sequence[Profile]) -> set[str]:
    """Create the recipient of each profile whose key no recipient holds, as a merge would
    (what a key limited to workflows may do: docs/security/keys.md, "Keys limited to workflows"), and
    leave every existing one as it is. Returns the keys of those that exist with a profile the
    merge would change (a field given with another value, a JSON key set to another value or
    removed). One statement, as recipients_upsert's; DuplicateKey when two profiles share a key.
    """
    if len({profile.key for profile in profiles}) != len(profiles):
        raise DuplicateKey("two profiles name the same key")
    items = [_item(profile, merge=True) for profile in profiles]
    done = _done(CREATE_OR_COMPARE_SQL, items)
    return {key for key, (_created, unchanged) in done.items() if not unchanged}


def _done(statement: str, items: list[dict[str, Any]]) -> dict[str, tuple[Any, ...]]:
    """Run an upsert `statement` on `items`: {key: the rest of its row}. A key another
    transaction created after the statement's snapshot is in no row: a second run does it."""
    done: dict[str, tuple[Any, ...]] = {}
    for _ in range(2):
        rows = fetchall_prepared(statement, {"rcp_items": json.dumps(items)})
        done.update((key, tuple(rest)) for key, *rest in rows)
        items = [item for item in items if item["key"] not in done]
        if not items:
            return done
    raise RuntimeError(f"recipients {[item['key'] for item in items]} could not be upserted")


def _item(profile: Profile, *, merge: bool) -> dict[str, Any]:
    """The statement's item of a profile: its given fields; for a merge, each JSON field split
    into the keys it sets and those it drops (given as null)."""
    item: dict[str, Any] = {"key": profile.key, **profile.fields}
    for name in WHOLE_FIELDS:  # null given: none, stored as {} (a missing key reads as NULL)
        if name in item and item[name] is None:
            item[name] = {}
    if merge:
        for name in JSON_FIELDS:
            given = profile.fields.get(name)
            if isinstance(given, dict):
                item[name] = {k: v for k, v in given.items() if v is not None}
                item[f"{name}_drop"] = [k for k, v in given.items() if v is None]
    return item


@dataclass(frozen=True)
class Erased:
    """What erasing a person removed: the profile, how many preference switches it held, how
    many topic subscriptions, from how many fan-outs' `exclude` their key was taken, and what
    the rooms above keep of them (`also`, by the names recipients.hooks.ERASERS give: their in-app messages)."""

    profile: int
    preferences: int
    topic_subscriptions: int
    fanout_exclusions: int = 0
    also: dict[str, int] = field(default_factory=dict)


def recipient_erase(*, key: str) -> Erased | None:
    """Erase the person `key`: their profile, preferences and topic subscriptions, their key in
    fan-outs' `exclude`, and what ERASERS hold of them (their in-app messages and inbox tokens),
    in one transaction; None when there is no such recipient. Their runs stay (a run names its
    recipient by key, a plain column), under retention; a step of one that would send to them
    from now on is skipped (docs/security/recipients.md, "Erasing a recipient")."""
    with transaction.atomic():
        recipient = Recipient.objects.select_for_update().filter(key=key).first()
        if recipient is None:
            return None
        subscriptions, _ = TopicSubscription.objects.filter(recipient_id=key).delete()
        preferences = preference_count(recipient.preferences)
        with connection.cursor() as cursor:
            cursor.execute(FANOUT_EXCLUDE_SCRUB_SQL, {"rcp_key": key})
            exclusions = cursor.rowcount
        also: dict[str, int] = {}
        for erase in ERASERS:
            also.update(erase(key))
        recipient.delete()
    return Erased(
        profile=1,
        preferences=preferences,
        topic_subscriptions=subscriptions,
        fanout_exclusions=exclusions,
        also=also,
    )


def preference_count(preferences: Any) -> int:
    """How many switches a preferences object holds (each channel, category and workflow
    named; a category's per-channel switches one each)."""
    if not isinstance(preferences, dict):
        return 0
    count = 0
    for section in preferences.values():
        if not isinstance(section, dict):
            continue
        for value in section.values():
            count += len(value) if isinstance(value, dict) else 1
    return count

"""Identify on trigger (docs/design.md, "Recipients"): a trigger request names its recipient by
key, or gives the person's profile with it, which is upserted (merged, as PATCH
/api/recipients/<id>/ merges) in the transaction that stores the trigger. Part of intake
(triggers/services.py `triggers_create`), only for requests that give a profile: a recipient
named by id alone is checked by the intake statement itself (`known`), at no statement more."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from recipients.selectors import recipient_keys_existing
from recipients.services import Profile, recipients_upsert
from recipients.sql import JSON_FIELDS


def recipients_identify(requests: Iterable[tuple[int, str, Profile | None]]) -> dict[int, str]:
    """Upsert the profiles of `requests` ((index, recipient key, profile or None)), in one
    statement, and return the requests that name a recipient that does not exist and give no
    profile: {index: key}. Several profiles of one key (a bulk request's) are merged in request
    order first, as if upserted one after the other."""
    requests = list(requests)
    profiles: dict[str, Profile] = {}
    for _, key, profile in requests:
        if profile is not None:
            profiles[key] = _combined(profiles.get(key), profile)
    if profiles:
        recipients_upsert(list(profiles.values()), merge=True)
    named = {key for _, key, profile in requests if profile is None and key not in profiles}
    known = recipient_keys_existing(named)
    return {
        index: key for index, key, profile in requests if profile is None and key in named - known
    }


def _combined(earlier: Profile | None, later: Profile) -> Profile:
    """Two merges of one person as one: the later's fields win, JSON fields key by key (a null
    stays, so the upsert drops that key)."""
    if earlier is None:
        return later
    fields: dict[str, Any] = {**earlier.fields, **later.fields}
    for name in JSON_FIELDS:
        before, after = earlier.fields.get(name), later.fields.get(name)
        if isinstance(before, dict) and isinstance(after, dict):
            fields[name] = {**before, **after}
    return Profile(key=later.key, fields=fields)

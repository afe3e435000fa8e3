"""Identify on trigger (docs/design/recipients.md, "Recipients"): a trigger request names its recipient by
key, or gives the person's profile with it, which is upserted (merged, as PATCH
/api/recipients/<id>/ merges) in the transaction that stores the trigger. Part of intake
(triggers/services.py `triggers_create`), only for requests that give a profile: a recipient
named by id alone is checked by the intake statement itself (`known`), at no statement more. A
key limited to workflows may create a recipient this way, not change one (docs/security/keys.md,
"Keys limited to workflows"): its profiles go through a statement that inserts the new and only
compares the existing, in place of the upsert, at no statement more either."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from recipients.selectors import recipient_keys_existing
from recipients.services import Profile, recipients_create_or_compare, recipients_upsert
from recipients.sql import JSON_FIELDS


@dataclass(frozen=True)
class Identified:
    """The requests a recipient refuses, by index: `unknown`, those naming one that does not
    exist without a profile; `differing`, those whose profile would change one that exists, for
    a key limited to workflows (which may create a recipient, never change one)."""

    unknown: dict[int, str]
    differing: dict[int, str]


def recipients_identify(
    requests: Iterable[tuple[int, str, Profile | None]], *, create_only: bool = False
) -> Identified:
    """Upsert the profiles of `requests` ((index, recipient key, profile or None)), in one
    statement, or with `create_only` (a key limited to workflows) create those that do not exist
    and change none; and say which requests are refused. Several profiles of one key (a bulk
    request's) are merged in request order first, as if upserted one after the other, and are
    judged together."""
    requests = list(requests)
    profiles: dict[str, Profile] = {}
    for _, key, profile in requests:
        if profile is not None:
            profiles[key] = _combined(profiles.get(key), profile)
    differing: set[str] = set()
    if profiles and create_only:
        differing = recipients_create_or_compare(list(profiles.values()))
    elif profiles:
        recipients_upsert(list(profiles.values()), merge=True)
    named = {key for _, key, profile in requests if profile is None and key not in profiles}
    known = recipient_keys_existing(named)
    return Identified(
        unknown={
            index: key
            for index, key, profile in requests
            if profile is None and key in named - known
        },
        differing={
            index: key
            for index, key, profile in requests
            if profile is not None and key in differing
        },
    )


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

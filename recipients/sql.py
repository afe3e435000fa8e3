"""The raw SQL on `recipient`, in one place: the upsert that PUT, PATCH, the bulk endpoint and
identify-on-trigger share (recipients/services.py), and the two reads on hot paths: intake's
check that the ids a trigger names exist, and a step's read of its run's recipient
(recipients/selectors.py). Raw because one statement decides a whole bulk request, and says for
each key whether it was created; all three run prepared (common/db.py), as intake and the
engine's statements do. Parameters carry the prefix `rcp_`.

The items come as one jsonb array (`%(rcp_items)s`), one object per recipient, with a key for
each field given and none for a field left out (jsonb_to_recordset reads a missing key as NULL):
that is how a merge tells "not given" from "given empty". A statement never holds a key twice
(the service refuses it before).

Two CTEs write: `inserted` takes the keys no row holds yet (ON CONFLICT DO NOTHING), `updated`
changes the rows that exist. `updated` is an UPDATE, not an ON CONFLICT DO UPDATE, because only
an UPDATE recomputes its SET from the latest version of a row another transaction changed
meanwhile (READ COMMITTED re-check): two concurrent merges of different fields both land. A row
inserted by another transaction after this statement's snapshot is in neither CTE; the service
runs the statement again for such keys.
"""

from __future__ import annotations

from recipients.models import PROFILE_FIELDS, Recipient

RECIPIENT_TABLE = Recipient._meta.db_table
TEXT_FIELDS = ("email", "phone", "name", "locale", "timezone")
JSON_FIELDS = ("channels", "properties")

_RECORD = ", ".join(
    ["key text"]
    + [f"{name} text" for name in TEXT_FIELDS]
    + [f"{name} jsonb" for name in JSON_FIELDS]
    + [f"{name}_drop text[]" for name in JSON_FIELDS]
)


def _merged(name: str) -> str:
    """A JSON field merged shallowly: the row's keys but those the item drops (given as null),
    then the item's."""
    return (
        f"(r.{name} - COALESCE(i.{name}_drop, '{{}}'::text[])) || COALESCE(i.{name}, '{{}}'::jsonb)"
    )


def _upsert_sql(*, merge: bool) -> str:
    if merge:
        text_sets = [f"{name} = COALESCE(i.{name}, r.{name})" for name in TEXT_FIELDS]
        json_sets = [f"{name} = {_merged(name)}" for name in JSON_FIELDS]
    else:
        text_sets = [f"{name} = COALESCE(i.{name}, '')" for name in TEXT_FIELDS]
        json_sets = [f"{name} = COALESCE(i.{name}, '{{}}'::jsonb)" for name in JSON_FIELDS]
    columns = ", ".join(("key", *TEXT_FIELDS, *JSON_FIELDS, "preferences"))
    values = ", ".join(
        ["i.key"]
        + [f"COALESCE(i.{name}, '')" for name in TEXT_FIELDS]
        + [f"COALESCE(i.{name}, '{{}}'::jsonb)" for name in JSON_FIELDS]
        + ["'{}'::jsonb"]
    )
    sets = ", ".join([*text_sets, *json_sets, "updated_at = now()"])
    return f"""
WITH i AS (SELECT * FROM jsonb_to_recordset(%(rcp_items)s::jsonb) AS i({_RECORD})),
inserted AS (
  INSERT INTO {RECIPIENT_TABLE} ({columns})
  SELECT {values} FROM i
  ON CONFLICT (key) DO NOTHING
  RETURNING key
),
updated AS (
  UPDATE {RECIPIENT_TABLE} AS r SET {sets}
  FROM i WHERE r.key = i.key
  RETURNING r.key
)
SELECT key, true FROM inserted UNION ALL SELECT key, false FROM updated
"""  # noqa: S608 (names from the models, values as parameters)


# What each item does to a recipient that exists: MERGE changes the fields it gives (a JSON
# field shallowly), REPLACE sets every field, to its default when the item leaves it out.
# Preferences are neither: they have their own endpoint. Returns (key, created) per key done.
UPSERT_MERGE_SQL = _upsert_sql(merge=True)
UPSERT_REPLACE_SQL = _upsert_sql(merge=False)


# Which of `rcp_keys` name a recipient (intake: a trigger naming one by id).
EXISTING_KEYS_SQL = f"""
SELECT key FROM {RECIPIENT_TABLE} WHERE key = ANY(%(rcp_keys)s::text[])
"""  # noqa: S608 (names from the models, values as parameters)

# A run's recipient: the profile fields (PROFILE_FIELDS, in order) and the preferences.
FOR_RUN_COLUMNS = (*PROFILE_FIELDS, "preferences")
FOR_RUN_SQL = f"""
SELECT {", ".join(FOR_RUN_COLUMNS)} FROM {RECIPIENT_TABLE} WHERE key = %(rcp_key)s
"""  # noqa: S608 (names from the models, values as parameters)

"""The raw SQL on recipients, in one place: the upsert that PUT, PATCH, the bulk endpoint and
identify-on-trigger share (recipients/services.py); the two reads on hot paths: intake's check
that the ids a trigger names exist, and a step's read of its run's recipient with what its
preferences need (recipients/selectors.py); the subscriptions of topics
(recipients/topics.py); a person's push addresses one at a time (recipients/channels.py). Raw because one statement decides a whole bulk request, and says for
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
runs the statement again for such keys. The same holds for CREATE_OR_COMPARE_SQL, a key
limited to workflows' variant, which inserts the new keys and only compares the existing rows.
"""

from __future__ import annotations

from recipients.models import (
    PROFILE_FIELDS,
    Category,
    Fanout,
    Recipient,
    RecipientTenantPreferences,
    TopicSubscription,
)

RECIPIENT_TABLE = Recipient._meta.db_table
FANOUT_TABLE = Fanout._meta.db_table
CATEGORY_TABLE = Category._meta.db_table
TENANT_PREFERENCES_TABLE = RecipientTenantPreferences._meta.db_table
SUBSCRIPTION_TABLE = TopicSubscription._meta.db_table
TEXT_FIELDS = ("email", "phone", "name", "locale", "timezone")
JSON_FIELDS = ("channels", "properties")
# JSON fields given whole: a merge replaces them as it does a text field (`quiet_hours`; none is
# `{}`, which the service sends for a null).
WHOLE_FIELDS = ("quiet_hours",)

_RECORD = ", ".join(
    ["key text"]
    + [f"{name} text" for name in TEXT_FIELDS]
    + [f"{name} jsonb" for name in JSON_FIELDS]
    + [f"{name} jsonb" for name in WHOLE_FIELDS]
    + [f"{name}_drop text[]" for name in JSON_FIELDS]
)


def _merged(name: str) -> str:
    """A JSON field merged shallowly: the row's keys but those the item drops (given as null),
    then the item's."""
    return (
        f"(r.{name} - COALESCE(i.{name}_drop, '{{}}'::text[])) || COALESCE(i.{name}, '{{}}'::jsonb)"
    )


# The new keys' rows, as both statements below insert them (a field left out: its default).
_INSERT_COLUMNS = ", ".join(("key", *TEXT_FIELDS, *JSON_FIELDS, *WHOLE_FIELDS, "preferences"))
_INSERT_VALUES = ", ".join(
    ["i.key"]
    + [f"COALESCE(i.{name}, '')" for name in TEXT_FIELDS]
    + [f"COALESCE(i.{name}, '{{}}'::jsonb)" for name in (*JSON_FIELDS, *WHOLE_FIELDS)]
    + ["'{}'::jsonb"]
)
_INSERT = f"""
  INSERT INTO {RECIPIENT_TABLE} ({_INSERT_COLUMNS})
  SELECT {_INSERT_VALUES} FROM i
  ON CONFLICT (key) DO NOTHING
  RETURNING key
"""  # noqa: S608 (names from the models, values as parameters)


def _upsert_sql(*, merge: bool) -> str:
    if merge:
        text_sets = [
            f"{name} = COALESCE(i.{name}, r.{name})" for name in (*TEXT_FIELDS, *WHOLE_FIELDS)
        ]
        json_sets = [f"{name} = {_merged(name)}" for name in JSON_FIELDS]
    else:
        text_sets = [f"{name} = COALESCE(i.{name}, '')" for name in TEXT_FIELDS]
        json_sets = [
            f"{name} = COALESCE(i.{name}, '{{}}'::jsonb)" for name in (*JSON_FIELDS, *WHOLE_FIELDS)
        ]
    sets = ", ".join([*text_sets, *json_sets, "updated_at = statement_timestamp()"])
    return f"""
WITH i AS (SELECT * FROM jsonb_to_recordset(%(rcp_items)s::jsonb) AS i({_RECORD})),
inserted AS ({_INSERT}),
updated AS (
  UPDATE {RECIPIENT_TABLE} AS r SET {sets}
  FROM i WHERE r.key = i.key
  RETURNING r.key
)
SELECT key, true FROM inserted UNION ALL SELECT key, false FROM updated
"""  # noqa: S608 (names from the models, values as parameters)


def _create_or_compare_sql() -> str:
    """The upsert of a key limited to workflows: a new key is inserted as the merge would insert
    it, an existing row is never written, only compared with what the merge would make of it."""
    unchanged = " AND ".join(
        [f"COALESCE(i.{name}, r.{name}) = r.{name}" for name in (*TEXT_FIELDS, *WHOLE_FIELDS)]
        + [f"{_merged(name)} = r.{name}" for name in JSON_FIELDS]
    )
    return f"""
WITH i AS (SELECT * FROM jsonb_to_recordset(%(rcp_items)s::jsonb) AS i({_RECORD})),
inserted AS ({_INSERT})
SELECT key, true, true FROM inserted
UNION ALL
SELECT r.key, false, {unchanged} FROM {RECIPIENT_TABLE} r JOIN i ON r.key = i.key
"""  # noqa: S608 (names from the models, values as parameters)


# What each item does to a recipient that exists: MERGE changes the fields it gives (a JSON
# field shallowly), REPLACE sets every field, to its default when the item leaves it out.
# Preferences are neither: they have their own endpoint. Returns (key, created) per key done.
UPSERT_MERGE_SQL = _upsert_sql(merge=True)
UPSERT_REPLACE_SQL = _upsert_sql(merge=False)
# Identify-on-trigger for a key limited to workflows (docs/security/keys.md, "Keys limited to
# workflows"): (key, created, unchanged) per key done; a row that exists is read, never written,
# and `unchanged` says whether merging the item into it would leave it as it is.
CREATE_OR_COMPARE_SQL = _create_or_compare_sql()


# Which of `rcp_keys` name a recipient (intake: a trigger naming one by id).
EXISTING_KEYS_SQL = f"""
SELECT key FROM {RECIPIENT_TABLE} WHERE key = ANY(%(rcp_keys)s::text[])
"""  # noqa: S608 (names from the models, values as parameters)

# A run's recipient, one row whatever exists: the profile fields (PROFILE_FIELDS, in order) and
# the preferences (NULL for a person erased or never created: `found` says which), and the
# defaults of the workflow's preference category (`rcp_category`; NULL for none). Two primary-key
# probes in one prepared statement: all a step for a recipient reads of them, the preference
# decision included (recipients/preferences.py).
FOR_RUN_COLUMNS = (*PROFILE_FIELDS, "preferences", "category_defaults", "found")
FOR_RUN_SQL = f"""
SELECT {", ".join(f"r.{name}" for name in PROFILE_FIELDS)}, r.preferences,
       (SELECT defaults FROM {CATEGORY_TABLE} WHERE slug = %(rcp_category)s),
       r.key IS NOT NULL
FROM (SELECT 1) AS one LEFT JOIN {RECIPIENT_TABLE} r ON r.key = %(rcp_key)s
"""  # noqa: S608 (names from the models, values as parameters)

# FOR_RUN_SQL for a run of a tenant (docs/tenants.md): the person's preferences for that tenant
# too (`rcp_tenant`; NULL when they set none), one more probe of a unique index in the same
# statement. A run without a tenant runs FOR_RUN_SQL, which reads nothing of them.
FOR_TENANT_RUN_COLUMNS = (*FOR_RUN_COLUMNS, "tenant_preferences")
FOR_TENANT_RUN_SQL = f"""
SELECT {", ".join(f"r.{name}" for name in PROFILE_FIELDS)}, r.preferences,
       (SELECT defaults FROM {CATEGORY_TABLE} WHERE slug = %(rcp_category)s),
       r.key IS NOT NULL,
       (SELECT preferences FROM {TENANT_PREFERENCES_TABLE}
        WHERE recipient_id = %(rcp_key)s AND tenant_id = %(rcp_tenant)s)
FROM (SELECT 1) AS one LEFT JOIN {RECIPIENT_TABLE} r ON r.key = %(rcp_key)s
"""  # noqa: S608 (names from the models, values as parameters)

# Subscribe recipients (%(recipients)s: known keys) to %(topic)s, in key order so that two calls
# whose keys overlap wait for each other in one order; an existing subscription is left as it
# is. RETURNING gives the keys subscribed now.
SUBSCRIBE_SQL = f"""
INSERT INTO {SUBSCRIPTION_TABLE} (topic_id, recipient_id)
SELECT %(topic)s, key FROM unnest(%(recipients)s::text[]) AS key ORDER BY key
ON CONFLICT (topic_id, recipient_id) DO NOTHING
RETURNING recipient_id
"""  # noqa: S608 (names from the models, values as parameters)

# Remove the subscriptions of %(recipients)s to %(topic)s; RETURNING gives the keys removed.
UNSUBSCRIBE_SQL = f"""
DELETE FROM {SUBSCRIPTION_TABLE}
WHERE topic_id = %(topic)s AND recipient_id = ANY(%(recipients)s::text[])
RETURNING recipient_id
"""  # noqa: S608 (names from the models, values as parameters)

# Erasing a person (recipients/services.py): their key out of every fan-out's `exclude` (a jsonb
# array of keys; `-` drops each element equal to it).
FANOUT_EXCLUDE_SCRUB_SQL = f"""
UPDATE {FANOUT_TABLE} SET exclude = exclude - %(rcp_key)s::text
WHERE exclude @> jsonb_build_array(%(rcp_key)s::text)
"""  # noqa: S608 (names from the models, values as parameters)


# A person's push addresses, added or removed one at a time (recipients/channels.py), each in one
# statement: the row's lock orders two devices registering at once, and an UPDATE recomputes its
# SET from the row the other left (READ COMMITTED re-check), so neither address is lost. An
# address is known by its identity: a browser subscription by its endpoint (a browser that
# subscribes again gets new keys for the same endpoint: it replaces the old entry), a device
# token by itself. A value under the channel that is not a list is none (the worker cannot use
# it either) and is replaced by the list.
def _identity(value: str) -> str:
    return (
        f"(CASE WHEN jsonb_typeof({value}) = 'object' THEN {value} -> 'endpoint' ELSE {value} END)"
    )


def _listed(channels: str) -> str:
    return (
        f"(CASE WHEN jsonb_typeof({channels} -> %(rcp_channel)s) = 'array' "
        f"THEN {channels} -> %(rcp_channel)s ELSE '[]'::jsonb END)"
    )


_OTHERS = f"""
    (SELECT coalesce(jsonb_agg(a ORDER BY n), '[]'::jsonb)
     FROM jsonb_array_elements({_listed("r.channels")}) WITH ORDINALITY AS e(a, n)
     WHERE {_identity("a")} IS DISTINCT FROM {_identity("%(rcp_address)s::jsonb")})
"""  # noqa: S608 (names from the models, values as parameters)

# (found, listed: the address as given, same: one with its identity) of the row as locked.
CHANNEL_ADDRESS_ADD_SQL = f"""
WITH old AS (
    SELECT key, {_listed("channels")} AS list FROM {RECIPIENT_TABLE}
    WHERE key = %(rcp_key)s FOR UPDATE
), changed AS (
    UPDATE {RECIPIENT_TABLE} r
    SET channels = jsonb_set(r.channels, ARRAY[%(rcp_channel)s],
                             {_OTHERS} || jsonb_build_array(%(rcp_address)s::jsonb)),
        updated_at = statement_timestamp()
    FROM old
    WHERE r.key = old.key
      AND NOT EXISTS (SELECT 1 FROM jsonb_array_elements(old.list) AS a
                      WHERE a = %(rcp_address)s::jsonb)
    RETURNING r.key
)
SELECT
    EXISTS (SELECT 1 FROM old),
    EXISTS (SELECT 1 FROM old, jsonb_array_elements(old.list) AS a
            WHERE a = %(rcp_address)s::jsonb),
    EXISTS (SELECT 1 FROM old, jsonb_array_elements(old.list) AS a
            WHERE {_identity("a")} = {_identity("%(rcp_address)s::jsonb")})
"""  # noqa: S608 (names from the models, values as parameters)
CHANNEL_ADDRESS_REMOVE_SQL = f"""
UPDATE {RECIPIENT_TABLE} r
SET channels = jsonb_set(r.channels, ARRAY[%(rcp_channel)s], {_OTHERS}),
    updated_at = statement_timestamp()
WHERE r.key = %(rcp_key)s
  AND EXISTS (SELECT 1 FROM jsonb_array_elements({_listed("r.channels")}) AS a
              WHERE {_identity("a")} = {_identity("%(rcp_address)s::jsonb")})
RETURNING r.key
"""  # noqa: S608 (names from the models, values as parameters)

# A category's slug taken out of every person's preferences (recipients/categories.py).
CATEGORY_PREFERENCES_SCRUB_SQL = f"""
UPDATE {RECIPIENT_TABLE}
SET preferences = jsonb_set(preferences, '{{categories}}',
                            (preferences -> 'categories') - %(rcp_slug)s::text),
    updated_at = statement_timestamp()
WHERE jsonb_typeof(preferences -> 'categories') = 'object'
  AND preferences -> 'categories' ? %(rcp_slug)s::text
"""  # noqa: S608 (names from the models, values as parameters)

"""The raw SQL on recipients, in one place: the preference look-up the engine runs before a send
of a run for a recipient (recipients/preferences.py; values with the prefix `pref_`), and the
subscriptions of topics (recipients/topics.py). Table names come from the models' `_meta`; values
are parameters."""

from __future__ import annotations

from recipients.models import Category, Recipient, TopicSubscription

RECIPIENT_TABLE = Recipient._meta.db_table
CATEGORY_TABLE = Category._meta.db_table
SUBSCRIPTION_TABLE = TopicSubscription._meta.db_table

# The person's preferences and the category's defaults, one row whatever exists (NULL for a
# person erased, or for no category): two primary-key probes, prepared once per connection like
# the suppression look-up (through the ORM it cost a step about a millisecond of CPU).
SEND_PREFERENCES_SQL = f"""
SELECT (SELECT preferences FROM {RECIPIENT_TABLE} WHERE key = %(pref_recipient)s),
       (SELECT defaults FROM {CATEGORY_TABLE} WHERE slug = %(pref_category)s)
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

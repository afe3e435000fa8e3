"""The raw SQL of topics' subscriptions (one home, as triggers/sql.py is intake's): table names
from the models, values as parameters."""

from __future__ import annotations

from recipients.models import TopicSubscription

SUBSCRIPTION_TABLE = TopicSubscription._meta.db_table

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

"""The raw SQL on recipients, in one place: the preference look-up the engine runs before a send
of a run for a recipient (recipients/preferences.py). Table names come from the models' `_meta`;
values are parameters with the prefix `pref_`."""

from __future__ import annotations

from recipients.models import Category, Recipient

RECIPIENT_TABLE = Recipient._meta.db_table
CATEGORY_TABLE = Category._meta.db_table

# The person's preferences and the category's defaults, one row whatever exists (NULL for a
# person erased, or for no category): two primary-key probes, prepared once per connection like
# the suppression look-up (through the ORM it cost a step about a millisecond of CPU).
SEND_PREFERENCES_SQL = f"""
SELECT (SELECT preferences FROM {RECIPIENT_TABLE} WHERE key = %(pref_recipient)s),
       (SELECT defaults FROM {CATEGORY_TABLE} WHERE slug = %(pref_category)s)
"""  # noqa: S608 (names from the models, values as parameters)

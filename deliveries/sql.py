"""The raw SQL on `suppression`, in one place: the look-up the engine runs before every send
(deliveries/suppression.py). The table name comes from the model's `_meta`; values are parameters
with the prefix `sup_`."""

from __future__ import annotations

from deliveries.models import Suppression

SUPPRESSION_TABLE = Suppression._meta.db_table

# The suppressions among a send's recipients, read before every provider call
# (deliveries/suppression.py): a few probes of suppression_once (channel, recipient, scope),
# prepared once per connection like the claim and the release.
SUPPRESSED_SQL = f"""
SELECT id, recipient, scope, reason, created_at FROM {SUPPRESSION_TABLE}
WHERE channel = %(sup_channel)s AND recipient = ANY(%(sup_recipients)s)
  AND scope = ANY(%(sup_scopes)s)
"""  # noqa: S608 (names from the models, values as parameters)

# A channel's whole list, at most %(sup_limit)s rows: what a worker holds as of a generation of
# the list (deliveries/suppression.py, SuppressionCache).
SUPPRESSION_LIST_SQL = f"""
SELECT id, recipient, scope, reason, created_at FROM {SUPPRESSION_TABLE}
WHERE channel = %(sup_channel)s LIMIT %(sup_limit)s
"""  # noqa: S608 (names from the models, values as parameters)

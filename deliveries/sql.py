"""The raw SQL on `suppression`, in one place: the look-up the engine runs before every send
(deliveries/suppression.py). The table name comes from the model's `_meta`; values are parameters
with the prefix `sup_`."""

from __future__ import annotations

from typing import Any

from deliveries.models import Suppression

SUPPRESSION_TABLE = Suppression._meta.db_table

# The suppressions among a send's recipients, read before every provider call
# (deliveries/suppression.py): a few probes of suppression_once (channel, recipient, scope),
# prepared once per connection like the claim and the release.
SUPPRESSED_SQL = f"""
SELECT id, recipient, scope, reason, created_at, source FROM {SUPPRESSION_TABLE}
WHERE channel = %(sup_channel)s AND recipient = ANY(%(sup_recipients)s)
  AND scope = ANY(%(sup_scopes)s)
"""  # noqa: S608 (names from the models, values as parameters)

# A channel's whole list, at most %(sup_limit)s rows: what a worker holds as of a generation of
# the list (deliveries/suppression.py, SuppressionCache).
SUPPRESSION_LIST_SQL = f"""
SELECT id, recipient, scope, reason, created_at, source FROM {SUPPRESSION_TABLE}
WHERE channel = %(sup_channel)s LIMIT %(sup_limit)s
"""  # noqa: S608 (names from the models, values as parameters)

# The latest state of each of a run's messages, by step (the `when` context's
# `steps.<id>.delivery`, docs/design/waits.md "Waiting for events"): the newest provider report about
# it, else the inbox's seen/read for an in-app message, else the send ledger's status; "" for a
# step that sent nothing. Read only for a workflow whose conditions read `steps`. Reports stay
# while the run lives (they leave with it: deliveries migration 0002), so a condition never
# turns false because history was purged under a live run.
MESSAGE_STATES_SQL = """
SELECT step.node_id, COALESCE(
    (SELECT d.event FROM delivery_event d
     WHERE d.trigger_id = %(trigger_id)s AND d.node_id = step.node_id
     ORDER BY d.occurred_at DESC, d.id DESC LIMIT 1),
    (SELECT CASE WHEN m.read_at IS NOT NULL THEN 'read'
                 WHEN m.seen_at IS NOT NULL THEN 'seen' ELSE 'sent' END
     FROM inbox_message m WHERE m.trigger_id = %(trigger_id)s AND m.node_id = step.node_id),
    (SELECT l.status FROM send_ledger l
     WHERE l.trigger_id = %(trigger_id)s AND l.node_id = step.node_id),
    '')
FROM unnest(%(node_ids)s::text[]) AS step(node_id)
"""


def message_states_params(*, trigger_id: Any, node_ids: list[str]) -> dict[str, Any]:
    return {"trigger_id": trigger_id, "node_ids": node_ids}

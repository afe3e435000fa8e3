"""The inbox's SQL that rides in other statements (docs/design.md, "In-app inbox").

MESSAGE_STORE_SQL is a node's own write (NodeRun.writes): the engine runs it in the step's
transaction right after the release, and only when the release applied (the run's lease still
held), so the message is stored along with the step's outcome or not at all; and it is keyed on
(trigger_id, node_id) with ON CONFLICT DO NOTHING, so a step run again after a crash, a lost
lease or a retry finds its message and stores no second one.
"""

from __future__ import annotations

import json
from typing import Any

from inbox.models import InboxMessage

MESSAGE_TABLE = InboxMessage._meta.db_table

MESSAGE_STORE_SQL = f"""
INSERT INTO {MESSAGE_TABLE} (id, recipient, trigger_id, node_id, workflow_key, category, title,
                             body, body_html, action_url, data, created_at)
VALUES (%(inbox_id)s::uuid, %(inbox_recipient)s::text, %(inbox_trigger)s::uuid,
        %(inbox_node)s::text, %(inbox_workflow)s::text, %(inbox_category)s::text,
        %(inbox_title)s::text, %(inbox_body)s::text, %(inbox_body_html)s::text,
        %(inbox_action_url)s::text, %(inbox_data)s::jsonb, now())
ON CONFLICT (trigger_id, node_id) DO NOTHING
"""  # noqa: S608 (names from the models, values as parameters)


def message_store_params(
    *,
    message_id: str,
    recipient: str,
    trigger_id: str,
    node_id: str,
    workflow_key: str,
    message: dict[str, Any],
) -> dict[str, Any]:
    """The parameters of MESSAGE_STORE_SQL; `message` holds the rendered fields (title, body,
    body_html, action_url, category) and `data`."""
    return {
        "inbox_id": message_id,
        "inbox_recipient": recipient,
        "inbox_trigger": trigger_id,
        "inbox_node": node_id,
        "inbox_workflow": workflow_key,
        "inbox_category": message.get("category", ""),
        "inbox_title": message["title"],
        "inbox_body": message["body"],
        "inbox_body_html": message["body_html"],
        "inbox_action_url": message.get("action_url", ""),
        "inbox_data": json.dumps(message.get("data") or {}),
    }


# --- marks (inbox/services.py) ------------------------------------------------------------------

# What each mark sets, and which messages it changes (the others already are so): a mark that
# changes nothing writes nothing and announces nothing. Reading a message sees it too.
MARKS: dict[str, tuple[str, str]] = {
    "seen": ("seen_at = now()", "seen_at IS NULL"),
    "read": ("read_at = now(), seen_at = COALESCE(seen_at, now())", "read_at IS NULL"),
    "unread": ("read_at = NULL", "read_at IS NOT NULL"),
    "archived": ("archived_at = now()", "archived_at IS NULL"),
    "unarchived": ("archived_at = NULL", "archived_at IS NOT NULL"),
}
MARK_RETURNS = "id, trigger_id, node_id, workflow_key, category, seen_at, read_at, archived_at"


def mark_sql(mark: str, *, every: bool) -> str:
    """The UPDATE of `mark` on the recipient's messages `%(ids)s`, or on every one not archived
    (`every`: mark-all), returning the rows it changed."""
    sets, changes = MARKS[mark]
    which = "archived_at IS NULL" if every else "id = ANY(%(ids)s::uuid[])"
    return (
        f"UPDATE {MESSAGE_TABLE} SET {sets} "  # noqa: S608 (constants above)
        f"WHERE recipient = %(recipient)s AND {which} AND {changes} "
        f"RETURNING {MARK_RETURNS}"
    )


# The counts of a recipient's messages not archived, in one scan of the feed's index.
COUNTS_SQL = f"""
SELECT count(*) FILTER (WHERE seen_at IS NULL), count(*) FILTER (WHERE read_at IS NULL), count(*)
FROM {MESSAGE_TABLE} WHERE recipient = %(recipient)s AND archived_at IS NULL
"""  # noqa: S608 (names from the models)

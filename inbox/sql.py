"""The inbox's SQL (docs/design/inbox.md, "In-app inbox").

An in-app message is stored by the step's release (`notiflow_release_v2`, triggers migration
0015), from its `inbox` argument (inbox_message, below): only when the release applies (the
run's lease still held), so the message is stored along with the step's outcome or not at all;
and keyed on (trigger_id, node_id) with ON CONFLICT DO NOTHING, so a step run again after a
crash, a lost lease or a retry finds its message and stores no second one.
"""

from __future__ import annotations

from typing import Any

from inbox.models import InboxMessage, TokenGeneration

MESSAGE_TABLE = InboxMessage._meta.db_table
GENERATION_TABLE = TokenGeneration._meta.db_table


def inbox_message(
    *, message_id: str, recipient: str, workflow_key: str, message: dict[str, Any]
) -> dict[str, Any]:
    """The release's `inbox` argument (as JSON): `message` holds the rendered fields (title, body,
    body_html, action_url, category) and `data`; the run and the node are the release's own."""
    return {
        "id": message_id,
        "recipient": recipient,
        "workflow_key": workflow_key,
        "category": message.get("category", ""),
        "title": message["title"],
        "body": message["body"],
        "body_html": message["body_html"],
        "action_url": message.get("action_url", ""),
        "data": message.get("data") or {},
    }


# --- marks (inbox/services.py) ------------------------------------------------------------------

# What each mark sets, and which messages it changes (the others already are so): a mark that
# changes nothing writes nothing and announces nothing. Reading a message sees it too, and keeps
# its first read (`first_read_at`, which an unread leaves: the funnel's `opened`).
MARKS: dict[str, tuple[str, str]] = {
    "seen": ("seen_at = statement_timestamp()", "seen_at IS NULL"),
    "read": (
        "read_at = statement_timestamp(), seen_at = COALESCE(seen_at, statement_timestamp()), "
        "first_read_at = COALESCE(first_read_at, statement_timestamp())",
        "read_at IS NULL",
    ),
    "unread": ("read_at = NULL", "read_at IS NOT NULL"),
    "archived": ("archived_at = statement_timestamp()", "archived_at IS NULL"),
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


# --- token generations (inbox/tokens.py, inbox/services.py) -------------------------------------

# The generation a recipient's token must carry: every feed request's one read (prepared, a
# primary-key lookup); no row is generation 0.
GENERATION_SQL = f"""
SELECT generation FROM {GENERATION_TABLE} WHERE digest = %(inb_digest)s
"""  # noqa: S608 (names from the models)

# Raise it (a rotate, an erase): every token of the generation before is refused from the commit.
GENERATION_RAISE_SQL = f"""
INSERT INTO {GENERATION_TABLE} AS g (digest, generation) VALUES (%(inb_digest)s, 1)
ON CONFLICT (digest) DO UPDATE SET generation = g.generation + 1
RETURNING generation
"""  # noqa: S608 (names from the models)

"""Figure 6 set-up: a history of completed triggers and step logs, and the plans of the hot queries.

The history is written by PostgreSQL itself (INSERT ... SELECT generate_series), in batches, under
its own workflow: 1 completed trigger with 3 step logs per row, inputs and outputs shaped like
the engine's. Then VACUUM ANALYZE, as autovacuum would have done on a live system (it may be
off on a development server: the machine description says).
"""

from __future__ import annotations

import time

import psycopg

# One statement per batch: the triggers, then 3 step logs for each of them.
LOAD_SQL = """
WITH history AS (
    INSERT INTO trigger_instance
        (id, workflow_id, workflow_version_id, idempotency_key, payload, status, current_node_id,
         vars, attempts, available_at, lease_until, leased_by, nudged_at, last_error, created_at,
         updated_at, completed_at)
    SELECT gen_random_uuid(), %(workflow)s, %(version)s, 'history-' || i,
           jsonb_build_object('email', 'user' || i || '@example.com', 'name', 'User ' || i,
                              'phone', '+1555' || lpad(i::text, 7, '0'), 'plan', 'pro'),
           'completed', NULL,
           jsonb_build_object(
               'email_welcome', jsonb_build_object(
                   'message_id', '<' || i || '.welcome@notiflow.local>',
                   'to', 'user' || i || '@example.com', 'sent_at', '2026-01-01T00:00:00+00:00'),
               'sms_text', jsonb_build_object(
                   'message_id', 'sms-' || i, 'to', '+1555' || i,
                   'sent_at', '2026-01-01T00:00:01+00:00'),
               'email_follow_up', jsonb_build_object(
                   'message_id', '<' || i || '.follow_up@notiflow.local>',
                   'to', 'user' || i || '@example.com', 'sent_at', '2026-01-01T00:00:02+00:00')),
           0, t, NULL, '', NULL, '', t, t + interval '2 seconds', t + interval '2 seconds'
    FROM generate_series(%(first)s::int, %(last)s::int) AS i,
         LATERAL (SELECT now() - interval '60 days' + i * interval '2 seconds' AS t) AS times
    RETURNING id, workflow_id, idempotency_key, payload, vars, created_at
)
INSERT INTO step_log (trigger_id, workflow_id, node_id, node_type, attempt, started_at,
                      finished_at, input, output, success, error)
SELECT h.id, h.workflow_id, n.node_id, n.node_type, 1,
       h.created_at + n.pos * interval '500 milliseconds',
       h.created_at + n.pos * interval '500 milliseconds' + interval '20 milliseconds',
       jsonb_build_object(
           'payload', h.payload, 'vars', '{}'::jsonb,
           'trigger', jsonb_build_object('id', h.id, 'idempotency_key', h.idempotency_key,
                                         'created_at', h.created_at),
           'workflow', jsonb_build_object('key', 'history', 'name', 'History', 'version', 1),
           'now', h.created_at),
       h.vars -> (n.node_type || '_' || n.node_id), true, ''
FROM history h
CROSS JOIN (VALUES (0, 'welcome', 'email'), (1, 'text', 'sms'), (2, 'follow_up', 'email'))
     AS n(pos, node_id, node_type)
"""

BATCH = 100_000


def history_load(url: str, *, workflow: int, version: int, triggers: int) -> float:
    """Load `triggers` completed triggers and 3 step logs each; returns the seconds it took."""
    started = time.monotonic()
    with psycopg.connect(url, autocommit=True) as conn:
        for first in range(1, triggers + 1, BATCH):
            last = min(triggers, first + BATCH - 1)
            conn.execute(
                LOAD_SQL, {"workflow": workflow, "version": version, "first": first, "last": last}
            )
            print(f"  loaded {last:,}/{triggers:,} triggers", flush=True)
        conn.execute("VACUUM ANALYZE trigger_instance")
        conn.execute("VACUUM ANALYZE step_log")
        conn.execute("VACUUM ANALYZE trigger_event")
        conn.execute("VACUUM ANALYZE send_ledger")
    return time.monotonic() - started


def table_sizes(url: str) -> dict[str, str]:
    """Rows and size of each history table, a partitioned one's summed over its partitions (its
    parent holds none)."""
    with psycopg.connect(url, autocommit=True) as conn:
        rows = conn.execute(
            """
            SELECT t.name, coalesce(sum(s.n_live_tup), 0)::bigint,
                   pg_size_pretty(sum(pg_total_relation_size(p.relid)))
            FROM unnest(ARRAY['trigger_instance', 'step_log', 'trigger_event', 'send_ledger'])
                AS t(name)
            CROSS JOIN LATERAL (
                SELECT relid FROM pg_partition_tree(t.name::regclass) WHERE isleaf
                UNION ALL  -- a table that is not partitioned has no tree
                SELECT t.name::regclass
                WHERE NOT EXISTS (SELECT FROM pg_partition_tree(t.name::regclass))
            ) AS p
            LEFT JOIN pg_stat_user_tables AS s ON s.relid = p.relid
            GROUP BY t.name
            ORDER BY t.name
            """
        ).fetchall()
    return {name: f"{rows:,} rows, {size}" for name, rows, size in rows}

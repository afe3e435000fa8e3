"""What a message wait finds recorded, as one SQL function (issue 45 §3: "a rule two places need
is one SQL function"), where the statements that time a wait out, close it past its deadline and
look back for it each had the same fragment filled into them (waits/sql.py's `_RECORDED`).

`notiflow_wait_recorded_v1(wait_name, wait_match, run_id, implied, inbox_channel)`: for a message
wait (its own run's `message.<state>` of a step: waits/messages.py), the earliest provider's
report (`delivery_event`) or inbox mark (`inbox_message`'s `read_at`, `seen_at`) that reaches
its state, as the event its post carries (same id, name and data), whether that post happened or
died with its process between the commit and the post; NULL for any other wait, and while
nothing recorded reaches the state. Which states a report reaches is `implied` (waits.sql's
IMPLIED as JSON, {state: [states it implies, itself among them]}; a state not in it reaches only
itself), and the channel an inbox mark's event names is `inbox_channel`: both are the callers'
parameters, so that each is written once, in Python, where the posts read them too. Lookups by
the run's id (delivery_event_trigger_idx, inbox_message_step), made only for a message wait.

Runs as its caller (the worker's timeouts and steps read both tables already).
"""

from django.db import migrations

RECORDED = """
CREATE FUNCTION notiflow_wait_recorded_v1(
    wait_name text, wait_match jsonb, run_id uuid, implied jsonb, inbox_channel text
) RETURNS jsonb LANGUAGE sql STABLE AS $$
SELECT CASE WHEN left(wait_name, 8) = 'message.' AND wait_match = jsonb_build_object(
        'trigger_id', run_id::text, 'node_id', wait_match ->> 'node_id')
    THEN (
    SELECT jsonb_build_object(
        'id', r.source || ':' || substr(wait_name, 9), 'name', wait_name,
        'data', jsonb_build_object('trigger_id', run_id::text, 'node_id', r.node_id,
                                   'channel', r.channel, 'state', substr(wait_name, 9)),
        'received_at', r.at)
    FROM (
        SELECT 'delivery-' || d.id AS source, d.node_id, d.channel, d.event::text AS state,
               d.received_at AS at
        FROM public.delivery_event d
        WHERE d.trigger_id = run_id AND d.node_id = wait_match ->> 'node_id'
        UNION ALL
        SELECT 'inbox-' || m.id, m.node_id, inbox_channel, mark.state, mark.at
        FROM public.inbox_message m,
             LATERAL (VALUES ('read', m.read_at), ('seen', m.seen_at)) AS mark(state, at)
        WHERE m.trigger_id = run_id AND m.node_id = wait_match ->> 'node_id'
          AND mark.at IS NOT NULL
    ) r
    WHERE r.state = substr(wait_name, 9)
       OR COALESCE((implied -> r.state) ? substr(wait_name, 9), false)
    ORDER BY r.at, r.source
    LIMIT 1)
END
$$;
COMMENT ON FUNCTION notiflow_wait_recorded_v1(text, jsonb, uuid, jsonb, text) IS
    'A message wait''s state as its run''s recorded reports and inbox marks reach it, as the event its post carries. waits/sql.py';
"""

DROP = "DROP FUNCTION IF EXISTS notiflow_wait_recorded_v1(text, jsonb, uuid, jsonb, text);"


class Migration(migrations.Migration):
    dependencies = [
        ("waits", "0004_event_wait_leased_timeouts"),
        ("deliveries", "0003_unmatched_report"),
        ("inbox", "0001_initial"),
    ]

    operations = [migrations.RunSQL(RECORDED, DROP)]

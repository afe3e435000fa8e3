-- bound on the client: each %(name)s reaches PostgreSQL as its literal value
SELECT created_at, resolved_at, received, timed_out, event, deadline, trace_context FROM event_wait
WHERE trigger_id = %(trigger_id)s AND node_id = %(node_id)s

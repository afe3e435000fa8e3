-- bound on the client: each %(name)s reaches PostgreSQL as its literal value
SELECT notiflow_run_park_v1(run_id => %(trigger_id)s::uuid, at_node => %(node_id)s::text,
                            wait_over => w.resolved_at IS NOT NULL,
                            reason => 'waiting for ' || %(name)s::text)
FROM event_wait w
WHERE w.trigger_id = %(trigger_id)s::uuid AND w.node_id = %(node_id)s::text

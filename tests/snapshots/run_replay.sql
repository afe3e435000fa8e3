-- bound on the client: each %(name)s reaches PostgreSQL as its literal value
SELECT r.replay_id, r.route_queue, r.route_priority
FROM notiflow_run_replay_v1(run_id => %(run)s::uuid, key => %(key)s::text,
                           actor => %(actor)s::text, reason => %(reason)s::text) AS r

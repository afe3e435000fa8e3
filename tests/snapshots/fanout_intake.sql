SELECT f.workflow_id, f.active, f.has_version, f.queue, f.served,
       f.run_id, f.run_key, f.run_priority
FROM notiflow_fanout_runs_insert_v2(
    workflow => $1::text, runs => $2::json, payload => $3::text,
    priority => $4::integer, cancellation_key => $5::text,
    actor => $6::text, require_worker => $7::boolean,
    live_within => $8::float8, tenant => $9::text
) AS f

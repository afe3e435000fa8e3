SELECT r.route_queue, r.route_priority, r.deliveries
FROM notiflow_release_v6(
    run_id => $1::uuid, token => $2::text, step_node => $3::text,
    new_status => $4::text, new_node => $5::text, vars_patch => $6::jsonb,
    new_attempts => $7::integer, due_in => $8::float8,
    nudged => $9::boolean, new_error => $10::text,
    finished => $11::boolean, reason => $12::text,
    ledger => $13::jsonb, step_log => $14::jsonb, announced => $15::jsonb,
    inbox => $16::jsonb
) AS r

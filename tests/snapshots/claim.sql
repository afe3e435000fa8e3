SELECT (c.claimed).id, (c.claimed).workflow_id, (c.claimed).workflow_version_id, (c.claimed).idempotency_key, (c.claimed).request_hash, (c.claimed).cancellation_key, (c.claimed).payload, (c.claimed).recipient, (c.claimed).locale, (c.claimed).tenant, (c.claimed).status, (c.claimed).current_node_id, (c.claimed).vars, (c.claimed).priority, (c.claimed).attempts, (c.claimed).available_at, (c.claimed).lease_until, (c.claimed).leased_by, (c.claimed).nudged_at, (c.claimed).last_error, (c.claimed).created_by, (c.claimed).created_at, (c.claimed).updated_at, (c.claimed).completed_at, (c.claimed).deleted_at, (c.claimed).delete_reason, (c.claimed).trace_context,
       c.ledger_send_count, c.ledger_result, c.claimed_at, c.suppression_generation,
       c.announced_to
FROM notiflow_claim_v3(run_id => $1::uuid, worker => $2::text,
                      lease_seconds => $3::float8, channels => $4::text[]) AS c

"""One clock (issue 45 §4; docs/design/rules.md, rule 15): version 2 of the two workers' functions
that read `now()`, reading `statement_timestamp()`, beside version 1, which stays for workers of
the previous release until none is left running (docs/design/run.md, "Versioned by name"):

- `notiflow_purge_deleted_v2(deleted_at, lease_until, cutoff)`: the purge's choice of deleted runs
  (workers migration 0010) under no live lease at the statement's time. `notiflow_purge_deleted_batch`
  is replaced to call it (CREATE OR REPLACE keeps its owner, notiflow_retention, and its grants);
  the dry run's counts call it too (workers/sql.py).
- `notiflow_push_address_remove_v2(recipient_key, channel, address)`: a gone push address removed
  (workers migration 0012), the recipient's `updated_at` the statement's time.
"""

import importlib

from django.db import migrations

purge_function = importlib.import_module(
    "workers.migrations.0010_purge_choice_functions"
).purge_function

PREDICATE = """
CREATE FUNCTION notiflow_purge_deleted_v2(
    deleted_at timestamptz, lease_until timestamptz, cutoff timestamptz
) RETURNS boolean LANGUAGE sql STABLE PARALLEL SAFE
AS $$ SELECT deleted_at < cutoff
             AND (lease_until IS NULL
                  OR public.notiflow_lease_expired_v1(lease_until, statement_timestamp())) $$;
"""
PREDICATE_BEFORE = (
    "DROP FUNCTION IF EXISTS notiflow_purge_deleted_v2(timestamptz, timestamptz, timestamptz);"
)
DELETED = "public.notiflow_purge_deleted_v2(deleted_at, lease_until, cutoff)"
DELETED_BEFORE = "public.notiflow_purge_deleted_v1(deleted_at, lease_until, cutoff)"

ADDRESS_REMOVE = """
CREATE FUNCTION notiflow_push_address_remove_v2(recipient_key text, channel text, address jsonb)
RETURNS void
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, public AS $$
    UPDATE public.recipient
    SET channels = jsonb_set(channels, ARRAY[channel], (
            SELECT coalesce(jsonb_agg(a), '[]'::jsonb)
            FROM jsonb_array_elements(channels -> channel) AS a
            WHERE a <> address)),
        updated_at = statement_timestamp()
    WHERE key = recipient_key AND jsonb_typeof(channels -> channel) = 'array'
$$;
REVOKE EXECUTE ON FUNCTION notiflow_push_address_remove_v2(text, text, jsonb) FROM PUBLIC;
"""
ADDRESS_REMOVE_BEFORE = (
    "DROP FUNCTION IF EXISTS notiflow_push_address_remove_v2(text, text, jsonb);"
)


class Migration(migrations.Migration):
    dependencies = [("workers", "0012_push_functions")]

    operations = [
        migrations.RunSQL(PREDICATE, PREDICATE_BEFORE),
        migrations.RunSQL(
            purge_function("notiflow_purge_deleted_batch", DELETED),
            purge_function("notiflow_purge_deleted_batch", DELETED_BEFORE),
        ),
        migrations.RunSQL(ADDRESS_REMOVE, ADDRESS_REMOVE_BEFORE),
    ]

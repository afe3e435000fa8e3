"""The push channels' two writes outside the claim and the release, as functions the worker role
may call while it holds no UPDATE of its own on `send_ledger` or `recipient` (triggers migration
0013; workers/services/roles.py ROLE_FUNCTIONS): each address's outcome recorded on the `sending`
ledger row as soon as the push service answered (a retry then sends only to the addresses not yet
answered), and an address the service says is gone removed from the recipient's channels.
`SECURITY DEFINER` with a fixed search_path and every name qualified, EXECUTE revoked from
PUBLIC, as the claim's and the release's. A change is a `_v2` in a new migration.
"""

from django.db import migrations

PROGRESS = """
CREATE FUNCTION notiflow_push_progress_v1(run_id uuid, step_node text, outcome jsonb)
RETURNS void
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, public AS $$
    UPDATE public.send_ledger
    SET result = jsonb_set(coalesce(result, '{}'::jsonb), '{progress}',
                           coalesce(result -> 'progress', '{}'::jsonb) || outcome)
    WHERE trigger_id = run_id AND node_id = step_node AND status = 'sending'
$$;
REVOKE EXECUTE ON FUNCTION notiflow_push_progress_v1(uuid, text, jsonb) FROM PUBLIC;
"""

ADDRESS_REMOVE = """
CREATE FUNCTION notiflow_push_address_remove_v1(recipient_key text, channel text, address jsonb)
RETURNS void
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, public AS $$
    UPDATE public.recipient
    SET channels = jsonb_set(channels, ARRAY[channel], (
            SELECT coalesce(jsonb_agg(a), '[]'::jsonb)
            FROM jsonb_array_elements(channels -> channel) AS a
            WHERE a <> address)),
        updated_at = now()
    WHERE key = recipient_key AND jsonb_typeof(channels -> channel) = 'array'
$$;
REVOKE EXECUTE ON FUNCTION notiflow_push_address_remove_v1(text, text, jsonb) FROM PUBLIC;
"""

DROP = """
DROP FUNCTION IF EXISTS notiflow_push_address_remove_v1(text, text, jsonb);
DROP FUNCTION IF EXISTS notiflow_push_progress_v1(uuid, text, jsonb);
"""


class Migration(migrations.Migration):
    dependencies = [
        ("workers", "0011_suppression_to_deliveries"),
        ("recipients", "0002_preferences"),
    ]

    operations = [migrations.RunSQL(PROGRESS + ADDRESS_REMOVE, DROP)]

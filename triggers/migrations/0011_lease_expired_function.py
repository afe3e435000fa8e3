"""The one home of "the lease expired" in SQL (notiflow/leases.py): `notiflow_lease_expired_v1`.

One comparison in a LANGUAGE sql IMMUTABLE function, neither STRICT nor SECURITY DEFINER, with no
SET: PostgreSQL inlines it into every statement that calls it, so the plans are those of the bare
`lease_until < at` (tests/test_leases.py checks it). Versioned by its name: a changed rule is a
new function, and statements prepared against this one keep working until they are replanned.
"""

from django.db import migrations

CREATE = """
CREATE FUNCTION notiflow_lease_expired_v1(lease_until timestamptz, at timestamptz)
RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$ SELECT lease_until < at $$;
COMMENT ON FUNCTION notiflow_lease_expired_v1(timestamptz, timestamptz) IS
    'The lease ending at lease_until has expired at `at` (NULL: no lease, not expired). notiflow/leases.py';
"""
DROP = "DROP FUNCTION IF EXISTS notiflow_lease_expired_v1(timestamptz, timestamptz);"


class Migration(migrations.Migration):
    dependencies = [("triggers", "0010_api_key_scopes")]

    operations = [migrations.RunSQL(CREATE, DROP)]

"""The suppression list's generation (issue 38): one counter that every change of the list
(insert, update, delete, truncate) raises in the changing transaction, by a statement trigger.

The claim of a send step reads it (`notiflow_claim_v2`, triggers migration 0015); a worker
process that holds the list as of that generation checks the send's recipients in memory,
without a statement of its own (deliveries/suppression.py, SuppressionCache). Raised in the
changing transaction, so a claim that sees a change also sees its rows; the counter's row lock
serialises writers of the list (bounces, complaints, unsubscribes: a few per second at most).
Its values come from a sequence, so a generation that was rolled back is never seen again (a
worker that read it in its own transaction would otherwise take a later, other list for it).
Not a model: no process but these functions reads or writes it.
"""

from django.db import migrations

GENERATION = """
CREATE SEQUENCE suppression_generation_seq;
CREATE TABLE suppression_generation (
    id smallint PRIMARY KEY CHECK (id = 1),
    generation bigint NOT NULL
);
INSERT INTO suppression_generation (id, generation) VALUES (1, nextval('suppression_generation_seq'));
COMMENT ON TABLE suppression_generation IS
    'Raised by every change of suppression: the claim reads it. deliveries/suppression.py';

CREATE FUNCTION notiflow_suppression_changed_v1() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public AS $$
BEGIN
    UPDATE public.suppression_generation SET generation = nextval('public.suppression_generation_seq')
    WHERE id = 1;
    RETURN NULL;
END
$$;
REVOKE EXECUTE ON FUNCTION notiflow_suppression_changed_v1() FROM PUBLIC;
CREATE TRIGGER suppression_changed
    AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON suppression
    FOR EACH STATEMENT EXECUTE FUNCTION notiflow_suppression_changed_v1();
"""

DROP = """
DROP TRIGGER IF EXISTS suppression_changed ON suppression;
DROP FUNCTION IF EXISTS notiflow_suppression_changed_v1();
DROP TABLE IF EXISTS suppression_generation;
DROP SEQUENCE IF EXISTS suppression_generation_seq;
"""


class Migration(migrations.Migration):
    dependencies = [("deliveries", "0004_suppression_from_workers")]

    operations = [migrations.RunSQL(GENERATION, DROP)]

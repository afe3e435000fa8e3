CREATE OR REPLACE FUNCTION public.notiflow_append_only()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
DECLARE
    old_row jsonb;
    new_row jsonb;
BEGIN
    IF TG_OP = 'DELETE' AND current_user = 'notiflow_retention' THEN
        RETURN OLD;
    END IF;
    -- One kind of UPDATE, when the table's trigger allows it by its four arguments.
    IF TG_OP = 'UPDATE' AND TG_NARGS = 4 THEN
        old_row := to_jsonb(OLD);
        new_row := to_jsonb(NEW);
        IF old_row ->> TG_ARGV[0] = TG_ARGV[1]
           AND new_row ->> TG_ARGV[0] = ANY (string_to_array(TG_ARGV[2], ','))
           AND NOT EXISTS (
               SELECT 1 FROM unnest(string_to_array(TG_ARGV[3], ',')) AS kept(name)
               WHERE old_row -> kept.name IS DISTINCT FROM new_row -> kept.name)
        THEN
            RETURN NEW;
        END IF;
    END IF;
    RAISE EXCEPTION '% is append-only: % refused',
        (SELECT c.relname FROM pg_catalog.pg_class c
         WHERE c.oid = coalesce(pg_catalog.pg_partition_root(TG_RELID), TG_RELID)), TG_OP
        USING ERRCODE = 'insufficient_privilege';
END
$function$

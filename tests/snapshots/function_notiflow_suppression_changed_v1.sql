CREATE OR REPLACE FUNCTION public.notiflow_suppression_changed_v1()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public'
AS $function$
BEGIN
    UPDATE public.suppression_generation SET generation = nextval('public.suppression_generation_seq')
    WHERE id = 1;
    RETURN NULL;
END
$function$

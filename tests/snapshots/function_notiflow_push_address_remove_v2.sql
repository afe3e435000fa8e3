CREATE OR REPLACE FUNCTION public.notiflow_push_address_remove_v2(recipient_key text, channel text, address jsonb)
 RETURNS void
 LANGUAGE sql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public'
AS $function$
    UPDATE public.recipient
    SET channels = jsonb_set(channels, ARRAY[channel], (
            SELECT coalesce(jsonb_agg(a), '[]'::jsonb)
            FROM jsonb_array_elements(channels -> channel) AS a
            WHERE a <> address)),
        updated_at = statement_timestamp()
    WHERE key = recipient_key AND jsonb_typeof(channels -> channel) = 'array'
$function$

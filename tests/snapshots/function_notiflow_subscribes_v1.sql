CREATE OR REPLACE FUNCTION public.notiflow_subscribes_v1(endpoint_events text[], endpoint_workflows text[], event_type text, workflow_key text)
 RETURNS boolean
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
AS $function$ SELECT (event_type = ANY (endpoint_events) OR '*' = ANY (endpoint_events))
             AND (endpoint_workflows = '{}' OR workflow_key = ANY (endpoint_workflows)) $function$

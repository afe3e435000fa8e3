WITH i AS (SELECT * FROM jsonb_to_recordset($1::jsonb) AS i(key text, email text, phone text, name text, locale text, timezone text, channels jsonb, properties jsonb, quiet_hours jsonb, channels_drop text[], properties_drop text[])),
inserted AS (
  INSERT INTO recipient (key, email, phone, name, locale, timezone, channels, properties, quiet_hours, preferences)
  SELECT i.key, COALESCE(i.email, ''), COALESCE(i.phone, ''), COALESCE(i.name, ''), COALESCE(i.locale, ''), COALESCE(i.timezone, ''), COALESCE(i.channels, '{}'::jsonb), COALESCE(i.properties, '{}'::jsonb), COALESCE(i.quiet_hours, '{}'::jsonb), '{}'::jsonb FROM i
  ON CONFLICT (key) DO NOTHING
  RETURNING key
)
SELECT key, true, true FROM inserted
UNION ALL
SELECT r.key, false, COALESCE(i.email, r.email) = r.email AND COALESCE(i.phone, r.phone) = r.phone AND COALESCE(i.name, r.name) = r.name AND COALESCE(i.locale, r.locale) = r.locale AND COALESCE(i.timezone, r.timezone) = r.timezone AND COALESCE(i.quiet_hours, r.quiet_hours) = r.quiet_hours AND (r.channels - COALESCE(i.channels_drop, '{}'::text[])) || COALESCE(i.channels, '{}'::jsonb) = r.channels AND (r.properties - COALESCE(i.properties_drop, '{}'::text[])) || COALESCE(i.properties, '{}'::jsonb) = r.properties FROM recipient r JOIN i ON r.key = i.key

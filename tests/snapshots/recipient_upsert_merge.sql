WITH i AS (SELECT * FROM jsonb_to_recordset($1::jsonb) AS i(key text, email text, phone text, name text, locale text, timezone text, channels jsonb, properties jsonb, quiet_hours jsonb, channels_drop text[], properties_drop text[])),
inserted AS (
  INSERT INTO recipient (key, email, phone, name, locale, timezone, channels, properties, quiet_hours, preferences)
  SELECT i.key, COALESCE(i.email, ''), COALESCE(i.phone, ''), COALESCE(i.name, ''), COALESCE(i.locale, ''), COALESCE(i.timezone, ''), COALESCE(i.channels, '{}'::jsonb), COALESCE(i.properties, '{}'::jsonb), COALESCE(i.quiet_hours, '{}'::jsonb), '{}'::jsonb FROM i
  ON CONFLICT (key) DO NOTHING
  RETURNING key
),
updated AS (
  UPDATE recipient AS r SET email = COALESCE(i.email, r.email), phone = COALESCE(i.phone, r.phone), name = COALESCE(i.name, r.name), locale = COALESCE(i.locale, r.locale), timezone = COALESCE(i.timezone, r.timezone), quiet_hours = COALESCE(i.quiet_hours, r.quiet_hours), channels = (r.channels - COALESCE(i.channels_drop, '{}'::text[])) || COALESCE(i.channels, '{}'::jsonb), properties = (r.properties - COALESCE(i.properties_drop, '{}'::text[])) || COALESCE(i.properties, '{}'::jsonb), updated_at = statement_timestamp()
  FROM i WHERE r.key = i.key
  RETURNING r.key
)
SELECT key, true FROM inserted UNION ALL SELECT key, false FROM updated

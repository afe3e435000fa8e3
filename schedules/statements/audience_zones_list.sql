-- The zones of a listed audience: each recipient's own, the default for one without (or not
-- stored).
SELECT DISTINCT COALESCE(NULLIF(r.timezone, ''), %(default_zone)s::text)
FROM unnest(%(recipients)s::text[]) AS a (key)
LEFT JOIN recipient r ON r.key = a.key

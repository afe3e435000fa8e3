-- The next `size` recipients of a listed audience after the place `cursor` (from 1, in the
-- list's order), in the zone `zone`: (place, recipient id).
SELECT a.n, a.key
FROM unnest(%(recipients)s::text[]) WITH ORDINALITY AS a (key, n)
LEFT JOIN recipient r ON r.key = a.key
WHERE a.n > %(cursor)s
  AND COALESCE(NULLIF(r.timezone, ''), %(default_zone)s::text) = %(zone)s::text
ORDER BY a.n
LIMIT %(size)s

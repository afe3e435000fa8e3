-- The next `size` recipients of a listed audience after the place `cursor` (from 1, in the
-- list's order), whatever their zone (a schedule in a fixed zone): (place, recipient id).
SELECT a.n, a.key
FROM unnest($1::text[]) WITH ORDINALITY AS a (key, n)
WHERE a.n > $2
ORDER BY a.n
LIMIT $3

-- The next `size` subscribers of a topic after the subscription id `cursor`, on the (topic, id)
-- index, in the zone `zone`: (subscription id, recipient id).
SELECT s.id, s.recipient_id
FROM recipient_topic_subscription s
JOIN recipient r ON r.key = s.recipient_id
WHERE s.topic_id = %(topic)s AND s.id > %(cursor)s
  AND COALESCE(NULLIF(r.timezone, ''), %(default_zone)s::text) = %(zone)s::text
ORDER BY s.id
LIMIT %(size)s

-- The next `size` subscribers of a topic after the subscription id `cursor`, on the (topic, id)
-- index, whatever their zone (a schedule in a fixed zone): (subscription id, recipient id).
SELECT s.id, s.recipient_id
FROM recipient_topic_subscription s
WHERE s.topic_id = %(topic)s AND s.id > %(cursor)s
ORDER BY s.id
LIMIT %(size)s

-- The zones of a topic's subscribers: each one's own, the default for one without.
SELECT DISTINCT COALESCE(NULLIF(r.timezone, ''), %(default_zone)s::text)
FROM recipient_topic_subscription s
JOIN recipient r ON r.key = s.recipient_id
WHERE s.topic_id = %(topic)s

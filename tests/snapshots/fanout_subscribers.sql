-- bound on the client: each %(name)s reaches PostgreSQL as its literal value
SELECT "recipient_topic_subscription"."id" AS "id", "recipient_topic_subscription"."recipient_id" AS "recipient_id" FROM "recipient_topic_subscription" WHERE ("recipient_topic_subscription"."id" > %s AND "recipient_topic_subscription"."topic_id" = %s) ORDER BY 1 ASC LIMIT 1000

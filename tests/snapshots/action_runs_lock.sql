-- bound on the client: each %(name)s reaches PostgreSQL as its literal value
SELECT "trigger_instance"."id" AS "pk" FROM "trigger_instance" WHERE ("trigger_instance"."deleted_at" IS NULL AND "trigger_instance"."status" IN (%s, %s, %s, %s, %s, %s) AND "trigger_instance"."id" IN (%s) AND "trigger_instance"."id" IN (%s)) ORDER BY 1 ASC FOR UPDATE OF "trigger_instance"

-- bound on the client: each %(name)s reaches PostgreSQL as its literal value
INSERT INTO "schedule_occurrence" ("schedule_id", "local", "zone", "occurs_at", "status", "runs", "charged", "reason", "recorded_at") VALUES (%s, %s, %s, %s, %s, %s, %s, %s, DEFAULT) RETURNING "schedule_occurrence"."id", "schedule_occurrence"."recorded_at"

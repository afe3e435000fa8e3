-- bound on the client: each %(name)s reaches PostgreSQL as its literal value
SELECT "workflows_workflow"."queue" AS "queue" FROM "workflows_workflow" WHERE "workflows_workflow"."key" = %s ORDER BY "workflows_workflow"."key" ASC LIMIT 1

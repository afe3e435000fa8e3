SELECT id, recipient, scope, reason, created_at, source FROM suppression
WHERE channel = $1 AND recipient = ANY($2)
  AND scope = ANY($3)

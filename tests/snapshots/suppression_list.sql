SELECT id, recipient, scope, reason, created_at, source FROM suppression
WHERE channel = $1 LIMIT $2

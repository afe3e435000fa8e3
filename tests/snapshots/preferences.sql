SELECT (SELECT preferences FROM recipient WHERE key = $1),
       (SELECT defaults FROM recipient_category WHERE slug = $2)

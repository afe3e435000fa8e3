SELECT r.email, r.phone, r.name, r.locale, r.timezone, r.quiet_hours, r.channels, r.properties, r.preferences,
       (SELECT defaults FROM recipient_category WHERE slug = $1),
       r.key IS NOT NULL
FROM (SELECT 1) AS one LEFT JOIN recipient r ON r.key = $2

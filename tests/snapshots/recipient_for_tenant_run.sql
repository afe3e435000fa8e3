SELECT r.email, r.phone, r.name, r.locale, r.timezone, r.quiet_hours, r.channels, r.properties, r.preferences,
       (SELECT defaults FROM recipient_category WHERE slug = $1),
       r.key IS NOT NULL,
       (SELECT preferences FROM recipient_tenant_preferences
        WHERE recipient_id = $2 AND tenant_id = $3)
FROM (SELECT 1) AS one LEFT JOIN recipient r ON r.key = $2

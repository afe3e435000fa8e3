SELECT email, phone, name, locale, timezone, channels, properties, preferences FROM recipient WHERE key = $1

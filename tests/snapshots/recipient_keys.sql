SELECT key FROM recipient WHERE key = ANY($1::text[])

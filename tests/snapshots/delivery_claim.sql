SELECT * FROM notiflow_delivery_claim_v2(
    $1::bigint, $2::text, $3::float8, $4::integer,
    $5::integer, $6::float8, $7::boolean,
    $8::integer)

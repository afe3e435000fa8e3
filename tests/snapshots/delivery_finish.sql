SELECT * FROM notiflow_delivery_finish_v1(
    $1::bigint, $2::text, $3::bigint, $4::text,
    $5::integer, $6::text, $7::integer, $8::float8,
    $9::boolean, $10::integer, $11::integer)

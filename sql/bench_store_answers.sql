-- bench_store_answers.sql: getvariable('bench_rows') synthetic store_answers
-- rows, for the Parquet writer benchmark (datasets BenchmarkParquetVsDuckDB).
-- Row i holds exactly the values of synthRows in datasets/datasets_test.go,
-- so DuckDB's own COPY ... (FORMAT parquet) writes the same rows as ours.
CREATE OR REPLACE TABLE bench_store_answers AS
SELECT
    'store-' || lpad(((i * 7919) % 1000003)::VARCHAR, 7, '0') || '.test' AS host,
    'Store ' || lpad(i::VARCHAR, 7, '0') AS name,
    ['apparel', 'footwear', 'beauty', 'home', 'food-drink', 'supplements',
     'outdoor', 'kids', 'pets', 'electronics', 'jewelry'][i % 11 + 1] AS category,
    CASE WHEN i % 5 <> 0 THEN ['shopify', 'woocommerce', 'custom'][i % 3 + 1] END AS platform,
    ['seed', 'submitted', 'third-party-list', 'map-derived', 'campaign', 'opted-out'][i % 6 + 1] AS source,
    CASE WHEN i % 7 <> 0 THEN i % 2 = 0 END AS agents_can_buy,
    CASE WHEN i % 3 <> 0 THEN i % 4 = 0 END AS buy_agent_catalog,
    CASE WHEN i % 2 <> 0 THEN i % 5 = 0 END AS buy_browser,
    CASE WHEN i % 9 <> 0 THEN (i * 37) % 101 END AS score,
    CASE WHEN i % 4 <> 0 THEN i % 3 = 0 END AS cart_link,
    CASE WHEN i % 6 <> 0 THEN i % 2 = 0 END AS ucp_valid,
    CASE WHEN i % 8 <> 0 THEN i % 7 = 0 END AS webmcp,
    CASE WHEN i % 10 <> 0 THEN i % 13 = 0 END AS blocked,
    CASE WHEN i % 3 = 0 THEN 'Publish a UCP profile at /.well-known/ucp' END AS fix,
    CASE WHEN i % 13 <> 0
        THEN make_timestamp(epoch_us(TIMESTAMP '2026-05-04') + i * 1000003)::TIMESTAMPTZ
    END AS checked_at,
    NULL::VARCHAR AS verdict,
    NULL::VARCHAR AS svc_url,
    NULL::VARCHAR AS fix_code,
    NULL::BOOLEAN AS catalog_answered,
    NULL::BOOLEAN AS product_found,
    NULL::BOOLEAN AS storefront_mcp,
    NULL::VARCHAR AS ucp_status,
    NULL::VARCHAR AS checkout_webmcp_status,
    NULL::VARCHAR AS score_inputs
FROM range(getvariable('bench_rows')) AS t(i);

-- aggregate_store_answers.sql: store_answers, one plain answer per store,
-- in the column order of datasets.StoreAnswers. The score, lanes and verdict
-- are derived in aggregate_signals.sql, whose host order the rows keep.
SELECT
    host,
    name,
    category,
    platform,
    source,
    agents_can_buy,
    buy_agent_catalog,
    buy_browser,
    score,
    cart_link,
    ucp_ok AS ucp_valid,
    webmcp,
    blocked,
    fix_text AS fix,
    checked_at,
    verdict,
    svc_url,
    fix_code,
    catalog_answered,
    product_found,
    storefront_mcp,
    ucp_status,
    CASE WHEN platform IS NOT NULL THEN checkout_webmcp_status END AS checkout_webmcp_status,
    score_inputs
FROM signals;

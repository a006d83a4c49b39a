-- aggregate_changes.sql: what changed per store since the previous run.
-- Inputs: store_answers (this run), prev_store_answers and prev_changes
-- (the previous run's tables; empty without history) and the variables
-- run_date, have_prev and prev_columns (the store_answers columns the
-- previous run's file actually has, so a column added since then is not
-- reported as a change). Values are compared as JSON text; null stays null
-- (unmeasured). A store that joined or left the directory gets one row,
-- field listed, and no per-field rows. Earlier weeks' rows carry over.
WITH cur AS (
    SELECT host, field, value
    FROM (
        SELECT
            host,
            to_json(platform)::VARCHAR AS platform,
            to_json(agents_can_buy)::VARCHAR AS agents_can_buy,
            to_json(buy_agent_catalog)::VARCHAR AS buy_agent_catalog,
            to_json(buy_browser)::VARCHAR AS buy_browser,
            to_json(score)::VARCHAR AS score,
            to_json(cart_link)::VARCHAR AS cart_link,
            to_json(ucp_valid)::VARCHAR AS ucp_valid,
            to_json(webmcp)::VARCHAR AS webmcp,
            to_json(blocked)::VARCHAR AS blocked,
            to_json(verdict)::VARCHAR AS verdict,
            to_json(fix_code)::VARCHAR AS fix_code,
            to_json(catalog_answered)::VARCHAR AS catalog_answered,
            to_json(product_found)::VARCHAR AS product_found,
            to_json(storefront_mcp)::VARCHAR AS storefront_mcp,
            to_json(ucp_status)::VARCHAR AS ucp_status,
            to_json(checkout_webmcp_status)::VARCHAR AS checkout_webmcp_status
        FROM store_answers
    ) UNPIVOT INCLUDE NULLS (value FOR field IN (
        platform,
        agents_can_buy,
        buy_agent_catalog,
        buy_browser,
        score,
        cart_link,
        ucp_valid,
        webmcp,
        blocked,
        verdict,
        fix_code,
        catalog_answered,
        product_found,
        storefront_mcp,
        ucp_status,
        checkout_webmcp_status
    ))
),
prev AS (
    SELECT host, field, value
    FROM (
        SELECT
            host,
            to_json(platform)::VARCHAR AS platform,
            to_json(agents_can_buy)::VARCHAR AS agents_can_buy,
            to_json(buy_agent_catalog)::VARCHAR AS buy_agent_catalog,
            to_json(buy_browser)::VARCHAR AS buy_browser,
            to_json(score)::VARCHAR AS score,
            to_json(cart_link)::VARCHAR AS cart_link,
            to_json(ucp_valid)::VARCHAR AS ucp_valid,
            to_json(webmcp)::VARCHAR AS webmcp,
            to_json(blocked)::VARCHAR AS blocked,
            to_json(verdict)::VARCHAR AS verdict,
            to_json(fix_code)::VARCHAR AS fix_code,
            to_json(catalog_answered)::VARCHAR AS catalog_answered,
            to_json(product_found)::VARCHAR AS product_found,
            to_json(storefront_mcp)::VARCHAR AS storefront_mcp,
            to_json(ucp_status)::VARCHAR AS ucp_status,
            to_json(checkout_webmcp_status)::VARCHAR AS checkout_webmcp_status
        FROM prev_store_answers
    ) UNPIVOT INCLUDE NULLS (value FOR field IN (
        platform,
        agents_can_buy,
        buy_agent_catalog,
        buy_browser,
        score,
        cart_link,
        ucp_valid,
        webmcp,
        blocked,
        verdict,
        fix_code,
        catalog_answered,
        product_found,
        storefront_mcp,
        ucp_status,
        checkout_webmcp_status
    ))
)
SELECT host, week, field, previous, current
FROM (
    SELECT c.host, getvariable('run_date') AS week, c.field, p.value AS previous, c.value AS current
    FROM cur AS c
    JOIN prev AS p USING (host, field)
    WHERE c.value IS DISTINCT FROM p.value
        AND list_contains(getvariable('prev_columns'), c.field)

    UNION ALL
    SELECT host, getvariable('run_date'), 'listed', 'false', 'true'
    FROM store_answers
    WHERE getvariable('have_prev') AND host NOT IN (SELECT host FROM prev_store_answers)

    UNION ALL
    SELECT host, getvariable('run_date'), 'listed', 'true', 'false'
    FROM prev_store_answers
    WHERE host NOT IN (SELECT host FROM store_answers)

    UNION ALL
    SELECT host, week, field, previous, current
    FROM prev_changes
    WHERE week < getvariable('run_date')
)
ORDER BY host, week, field;

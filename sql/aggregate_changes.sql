-- aggregate_changes.sql: what changed per store since the previous run.
-- Inputs: store_answers (this run), prev_store_answers and prev_changes
-- (the previous run's tables; empty without history) and the variables
-- run_date, have_prev and prev_columns (the store_answers columns the
-- previous run's file actually has, so a column added since then is not
-- reported as a change). Values are compared as JSON text; null stays null
-- (unmeasured). A store that joined or left the directory gets one row,
-- field listed, and no per-field rows. Earlier weeks' rows carry over.
WITH pairs AS (
    -- Each store in both runs, with the fields whose value differs. Two
    -- values of one column type differ exactly when their JSON texts do,
    -- so only the changed values are turned into JSON: comparing every
    -- field of a million stores as text costs seconds.
    SELECT
        c.host,
        list_filter([
            CASE WHEN c.platform IS DISTINCT FROM p.platform
                THEN {field: 'platform', previous: to_json(p.platform)::VARCHAR, current: to_json(c.platform)::VARCHAR}
            END,
            CASE WHEN c.agents_can_buy IS DISTINCT FROM p.agents_can_buy
                THEN {field: 'agents_can_buy', previous: to_json(p.agents_can_buy)::VARCHAR, current: to_json(c.agents_can_buy)::VARCHAR}
            END,
            CASE WHEN c.buy_agent_catalog IS DISTINCT FROM p.buy_agent_catalog
                THEN {field: 'buy_agent_catalog', previous: to_json(p.buy_agent_catalog)::VARCHAR, current: to_json(c.buy_agent_catalog)::VARCHAR}
            END,
            CASE WHEN c.buy_browser IS DISTINCT FROM p.buy_browser
                THEN {field: 'buy_browser', previous: to_json(p.buy_browser)::VARCHAR, current: to_json(c.buy_browser)::VARCHAR}
            END,
            CASE WHEN c.score IS DISTINCT FROM p.score
                THEN {field: 'score', previous: to_json(p.score)::VARCHAR, current: to_json(c.score)::VARCHAR}
            END,
            CASE WHEN c.cart_link IS DISTINCT FROM p.cart_link
                THEN {field: 'cart_link', previous: to_json(p.cart_link)::VARCHAR, current: to_json(c.cart_link)::VARCHAR}
            END,
            CASE WHEN c.ucp_valid IS DISTINCT FROM p.ucp_valid
                THEN {field: 'ucp_valid', previous: to_json(p.ucp_valid)::VARCHAR, current: to_json(c.ucp_valid)::VARCHAR}
            END,
            CASE WHEN c.webmcp IS DISTINCT FROM p.webmcp
                THEN {field: 'webmcp', previous: to_json(p.webmcp)::VARCHAR, current: to_json(c.webmcp)::VARCHAR}
            END,
            CASE WHEN c.blocked IS DISTINCT FROM p.blocked
                THEN {field: 'blocked', previous: to_json(p.blocked)::VARCHAR, current: to_json(c.blocked)::VARCHAR}
            END,
            CASE WHEN c.verdict IS DISTINCT FROM p.verdict
                THEN {field: 'verdict', previous: to_json(p.verdict)::VARCHAR, current: to_json(c.verdict)::VARCHAR}
            END,
            CASE WHEN c.fix_code IS DISTINCT FROM p.fix_code
                THEN {field: 'fix_code', previous: to_json(p.fix_code)::VARCHAR, current: to_json(c.fix_code)::VARCHAR}
            END,
            CASE WHEN c.catalog_answered IS DISTINCT FROM p.catalog_answered
                THEN {field: 'catalog_answered', previous: to_json(p.catalog_answered)::VARCHAR, current: to_json(c.catalog_answered)::VARCHAR}
            END,
            CASE WHEN c.product_found IS DISTINCT FROM p.product_found
                THEN {field: 'product_found', previous: to_json(p.product_found)::VARCHAR, current: to_json(c.product_found)::VARCHAR}
            END,
            CASE WHEN c.storefront_mcp IS DISTINCT FROM p.storefront_mcp
                THEN {field: 'storefront_mcp', previous: to_json(p.storefront_mcp)::VARCHAR, current: to_json(c.storefront_mcp)::VARCHAR}
            END,
            CASE WHEN c.ucp_status IS DISTINCT FROM p.ucp_status
                THEN {field: 'ucp_status', previous: to_json(p.ucp_status)::VARCHAR, current: to_json(c.ucp_status)::VARCHAR}
            END,
            CASE WHEN c.checkout_webmcp_status IS DISTINCT FROM p.checkout_webmcp_status
                THEN {field: 'checkout_webmcp_status', previous: to_json(p.checkout_webmcp_status)::VARCHAR, current: to_json(c.checkout_webmcp_status)::VARCHAR}
            END
        ], x -> x IS NOT NULL) AS diffs
    FROM store_answers AS c
    JOIN prev_store_answers AS p USING (host)
)
SELECT host, week, field, previous, current
FROM (
    SELECT host, getvariable('run_date') AS week, d.field, d.previous, d.current
    FROM (SELECT host, unnest(diffs) AS d FROM pairs)
    WHERE list_contains(getvariable('prev_columns'), d.field)

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

-- aggregate_figures.sql: the counts behind adoption.json, protocols.json
-- and the weekly figure, over all stores (grp 'all') and per category,
-- platform and weekly segment (GROUPING SETS). Every <x>_n column is the
-- denominator of x: the stores where x was measured; stores where it was
-- not are left out, never counted as "no". Checkout WebMCP is counted
-- against the stores whose platform was measured (measured at the checkout
-- page by a browser shopper, of which cwm_measured_yes saw a tool;
-- evidence, inferred, unknown); cwm_not_checked counts the stores whose
-- platform was not.
-- market_n counts the stores whose market is known.
SELECT
    CASE
        WHEN grouping(category) = 0 THEN 'category'
        WHEN grouping(platform) = 0 THEN 'platform'
        WHEN grouping(segment) = 0 THEN 'segment'
        ELSE 'all'
    END AS grp,
    CASE
        WHEN grouping(category) = 0 THEN category
        WHEN grouping(platform) = 0 THEN platform
        WHEN grouping(segment) = 0 THEN segment
    END AS key,
    count(*) AS stores,
    count(*) FILTER (WHERE checked) AS checked,
    count(platform) AS shops,
    count(ucp_ok) AS ucp_n,
    count(*) FILTER (WHERE ucp_ok) AS ucp_yes,
    count(*) FILTER (WHERE ucp_status IN ('valid', 'invalid', 'unvalidated')) AS ucp_served,
    count(*) FILTER (WHERE ucp_counts_in_directory) AS ucp_directory,
    -- The directory's count is judged wherever a profile was read or is
    -- known missing, schemas or not (unvalidated counts here, not in ucp_n).
    count(*) FILTER (WHERE ucp_status IN ('valid', 'invalid', 'missing', 'unvalidated')) AS ucp_directory_n,
    -- Profiles read that broke no rule but could not be validated (the run
    -- had no schemas for them): while any is left, validUcp is not measured.
    count(*) FILTER (WHERE ucp_status = 'unvalidated') AS ucp_unvalidated,
    count(storefront_mcp) AS smcp_n,
    count(*) FILTER (WHERE storefront_mcp) AS smcp,
    count(catalog_answered) AS catalog_n,
    count(*) FILTER (WHERE catalog_answered) AS catalog,
    count(product_found) AS product_n,
    count(*) FILTER (WHERE product_found) AS product,
    count(webmcp) AS webmcp_n,
    count(*) FILTER (WHERE webmcp) AS webmcp_yes,
    count(*) FILTER (WHERE platform IS NOT NULL AND checkout_webmcp_status = 'measured') AS cwm_measured,
    count(*) FILTER (WHERE platform IS NOT NULL AND checkout_webmcp_status = 'measured' AND checkout_webmcp_detected) AS cwm_measured_yes,
    count(*) FILTER (WHERE platform IS NOT NULL AND checkout_webmcp_status = 'evidence') AS cwm_evidence,
    count(*) FILTER (WHERE platform IS NOT NULL AND checkout_webmcp_status = 'inferred') AS cwm_inferred,
    count(*) FILTER (WHERE platform IS NOT NULL AND checkout_webmcp_status NOT IN ('measured', 'evidence', 'inferred')) AS cwm_unknown,
    count(*) FILTER (WHERE platform IS NULL) AS cwm_not_checked,
    count(cart_link) AS cart_n,
    count(*) FILTER (WHERE cart_link) AS cart,
    count(buy_agent_catalog) AS lane_n,
    count(*) FILTER (WHERE buy_agent_catalog) AS lane,
    count(buy_browser) AS browser_n,
    count(*) FILTER (WHERE buy_browser) AS browser,
    count(agents_can_buy) AS buy_n,
    count(*) FILTER (WHERE agents_can_buy) AS buy,
    count(acp_found) AS acp_n,
    count(*) FILTER (WHERE acp_found) AS acp,
    count(mcp_card_found) AS card_n,
    count(*) FILTER (WHERE mcp_card_found) AS card,
    count(blocked) AS blocked_n,
    count(*) FILTER (WHERE blocked) AS blocked_yes,
    count(score) AS score_n,
    coalesce(sum(score), 0)::BIGINT AS score_sum,
    -- The weekly figure: stores whose market is the US, those of them
    -- where the UCP checkout link was measured, and those where it came.
    count(market) AS market_n,
    count(*) FILTER (WHERE market = 'US') AS us_stores,
    count(ucp_checkout_link) FILTER (WHERE market = 'US') AS us_link_n,
    count(*) FILTER (WHERE market = 'US' AND ucp_checkout_link) AS us_link,
    -- The protocol matrix's UCP transact stage: every market.
    count(ucp_checkout_link) AS ucp_link_n,
    count(*) FILTER (WHERE ucp_checkout_link) AS ucp_link,
    max(checked_at) FILTER (WHERE checked) AS as_of
FROM signals
GROUP BY GROUPING SETS ((), (category), (platform), (segment))
ORDER BY grp, key NULLS LAST;

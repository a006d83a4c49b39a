-- aggregate_signals.sql: one row per crawled store with the derived signals
-- that every later table and figure of `svc aggregate` shares. Inputs: the
-- view checks (the crawl's table), browser_lane (host, reached), ucp_path
-- (host, outcome, reason: the service's own UCP agent path),
-- checkout_webmcp (host, measured, detected, tools, reason: what the
-- browser shoppers saw at the checkout page) and the variable base_url. A null is always "not measured", never false or 0.
--
-- UCP checkout link (store_answers.ucp_checkout_link, the weekly figure):
-- true when the UCP agent path returned a checkout (checkout_reached);
-- false when the path ended without one (added_to_cart, or no_cart for any
-- reason but an unreadable profile), or, for any store checked as a shop,
-- when its UCP profile is missing or invalid (the path's first step: there
-- is no UCP service to return one); null otherwise (a valid, unreadable or
-- unvalidated profile the path did not take to a cart: not measured).
--
-- Readiness score (store_answers.score, documented in its table
-- description): seven measured signals with weights summing to 100,
--   catalog_answered 25, ucp_ok 20, product_data_complete 15,
--   product_found 10, webmcp 10, policies_all 10, robots_users_allowed 10;
--   score = round(100 * held / measured), where held sums the weights of
--   the measured signals that are true and measured the weights of every
--   measured signal (unmeasured ones are left out of both, never counted as
--   0); rounding is half up, in integers: (200 * held + measured) // (2 *
--   measured). A store whose edge blocked the check scores 0 (agents cannot
--   reach it). Hosts not measured as a shop (unreachable, parked, another
--   brand, a failed check) have a null score. The buy lanes and cart_link
--   are reported beside the score and never change it (spec 1.3).
--
-- The rows are stored in host order, the stage's one sort: the tables
-- read from signals alone keep that order (a scan of one table keeps its
-- insertion order), so they come out in key order without sorting their
-- rows, five per store in agent_facts and four in policies. The checks
-- files are host-ordered, but a sharded run's only per shard, and the join
-- with browser_lane does not keep its input's order.
CREATE OR REPLACE TEMP TABLE signals AS
WITH base AS (
    SELECT
        -- Only the checks columns that this file and the later aggregate
        -- SQL read (add one here before reading it there): a million
        -- stores' whole results (result_json, the tool lists, every robots
        -- verdict) would be copied into the table for nothing. Of
        -- result_json only the two fields parsed below are kept.
        c.host, c.name, c.category, c.source, c.checked_at,
        c.blocked, c.block_reason, c.parked, c.redirects_to_other_brand, c.platform,
        c.catalog_answered, c.catalog_throttled, c.product_found, c.cart_link,
        c.storefront_mcp, c.webmcp,
        c.ucp_status, c.ucp_counts_in_directory,
        c.robots_chatgpt_user, c.robots_claude_user, c.robots_perplexity_user,
        c.product_data_source, c.product_name, c.product_price, c.product_currency,
        c.product_availability, c.product_gtin, c.product_sku, c.product_image, c.product_data_complete,
        c.acp_found, c.mcp_card_found, c.fix_code,
        c.market, c.market_basis,
        c.description_text, c.description_source, c.description_url, c.description_words,
        c.use_case_mention, c.use_case_phrases, c.agent_friendly_description, c.description_issues,
        c.policy_privacy, c.policy_returns, c.policy_shipping, c.policy_terms,
        c.check_error IS NULL AND c.checked_at IS NOT NULL AS checked,
        -- A valid profile is true; an invalid or missing one is a measured
        -- false; unreachable and not_checked are unmeasured.
        CASE WHEN c.ucp_status IN ('valid', 'invalid', 'missing') THEN c.ucp_status = 'valid' END AS ucp_ok,
        CASE WHEN c.policy_returns IS NOT NULL
            THEN c.policy_returns AND c.policy_shipping AND c.policy_privacy AND c.policy_terms
        END AS policies_all,
        -- robots.txt lets the user-initiated agents (acting for a shopper
        -- now) load "/".
        CASE WHEN c.robots_status IN ('ok', 'not_found', 'error') THEN NOT (
            coalesce(c.robots_chatgpt_user = 'disallowed', false)
            OR coalesce(c.robots_claude_user = 'disallowed', false)
            OR coalesce(c.robots_perplexity_user = 'disallowed', false))
        END AS robots_users_allowed,
        b.reached AS buy_browser,
        -- Checkout WebMCP: measured where a browser shopper reached the
        -- store's checkout page (checkout_webmcp, from the shop stage),
        -- else the crawl's platform inference (or evidence, or unknown).
        CASE WHEN w.measured THEN 'measured' ELSE c.checkout_webmcp_status END AS checkout_webmcp_status,
        CASE WHEN w.measured THEN w.detected ELSE c.checkout_webmcp_detected END AS checkout_webmcp_detected,
        w.measured AS cwm_measured, w.tools AS cwm_tools, w.reason AS cwm_reason,
        CASE
            WHEN u.outcome = 'checkout_reached' THEN true
            WHEN u.outcome = 'added_to_cart' THEN false
            WHEN u.outcome = 'no_cart' AND coalesce(u.reason, '') <> 'ucp_profile_unreachable' THEN false
            WHEN c.check_error IS NULL AND c.platform IS NOT NULL AND c.ucp_status IN ('missing', 'invalid') THEN false
        END AS ucp_checkout_link,
        -- All four fields in one parse of the JSON text.
        json_extract_string(c.result_json, ['$.fix.text', '$.productData.url', '$.checkoutWebmcp.tools', '$.checkoutWebmcp.reason']) AS result_fields,
        CASE WHEN c.platform IN ('shopify', 'bigcommerce') THEN 'hosted_platform' ELSE 'not_detected' END AS segment
    FROM checks AS c
    LEFT JOIN browser_lane AS b USING (host)
    LEFT JOIN ucp_path AS u USING (host)
    LEFT JOIN checkout_webmcp AS w USING (host)
),
lanes AS (
    SELECT
        * EXCLUDE (result_fields, cwm_measured, cwm_tools, cwm_reason),
        result_fields[1] AS fix_text,
        nullif(result_fields[2], '') AS product_url,
        -- The tools and reason go with the status: the shoppers' when
        -- measured; else the crawl's, after why no shopper measured it.
        CASE WHEN cwm_measured THEN cwm_tools ELSE coalesce(result_fields[3], '[]') END AS checkout_webmcp_tools,
        CASE
            WHEN cwm_measured THEN cwm_reason
            WHEN cwm_reason IS NOT NULL THEN cwm_reason || ' ' || coalesce(result_fields[4], '')
            ELSE result_fields[4]
        END AS checkout_webmcp_reason,
        -- buy.agent_catalog: the hosted catalog/cart returned a checkout
        -- link AND the UCP profile is valid (three-valued AND: false when
        -- either is a measured false, null when neither decides).
        cart_link AND ucp_ok AS buy_agent_catalog,
        25 * coalesce(catalog_answered::INTEGER, 0)
            + 20 * coalesce(ucp_ok::INTEGER, 0)
            + 15 * coalesce(product_data_complete::INTEGER, 0)
            + 10 * coalesce(product_found::INTEGER, 0)
            + 10 * coalesce(webmcp::INTEGER, 0)
            + 10 * coalesce(policies_all::INTEGER, 0)
            + 10 * coalesce(robots_users_allowed::INTEGER, 0) AS score_held,
        CASE WHEN catalog_answered IS NULL THEN 0 ELSE 25 END
            + CASE WHEN ucp_ok IS NULL THEN 0 ELSE 20 END
            + CASE WHEN product_data_complete IS NULL THEN 0 ELSE 15 END
            + CASE WHEN product_found IS NULL THEN 0 ELSE 10 END
            + CASE WHEN webmcp IS NULL THEN 0 ELSE 10 END
            + CASE WHEN policies_all IS NULL THEN 0 ELSE 10 END
            + CASE WHEN robots_users_allowed IS NULL THEN 0 ELSE 10 END AS score_measured,
        (catalog_answered IS NOT NULL)::INTEGER
            + (ucp_ok IS NOT NULL)::INTEGER
            + (product_data_complete IS NOT NULL)::INTEGER
            + (product_found IS NOT NULL)::INTEGER
            + (webmcp IS NOT NULL)::INTEGER
            + (policies_all IS NOT NULL)::INTEGER
            + (robots_users_allowed IS NOT NULL)::INTEGER AS score_signals
    FROM base
),
scored AS (
    SELECT
        *,
        -- Either lane reached the cart: true; a lane measured and none
        -- reached it: false; neither lane measured: null.
        CASE
            WHEN buy_agent_catalog OR buy_browser THEN true
            WHEN buy_agent_catalog IS NULL AND buy_browser IS NULL THEN NULL
            ELSE false
        END AS agents_can_buy,
        CASE
            WHEN blocked THEN 0
            WHEN NOT checked OR platform IS NULL OR score_measured = 0 THEN NULL
            ELSE (200 * score_held + score_measured) // (2 * score_measured)
        END::BIGINT AS score,
        CASE
            WHEN blocked THEN 1
            WHEN NOT checked OR platform IS NULL THEN 0
            ELSE score_signals
        END::BIGINT AS score_inputs
    FROM lanes
)
SELECT
    *,
    CASE
        WHEN NOT checked THEN 'check_failed'
        WHEN agents_can_buy THEN 'agents_can_buy'
        WHEN blocked THEN 'blocked'
        WHEN parked OR redirects_to_other_brand THEN 'not_a_store'
        WHEN platform IS NULL THEN 'unreachable'
        WHEN cart_link THEN 'cart_without_valid_ucp'
        WHEN catalog_answered AND product_found IS NULL THEN 'catalog_throttled'
        WHEN product_found THEN 'catalog_only'
        ELSE 'no_agent_catalog'
    END AS verdict,
    getvariable('base_url') || '/stores/' || host || '/' AS svc_url
FROM scored
ORDER BY host;

-- aggregate_agent_facts.sql: five typed decisions per store, read from the
-- fields the plain-HTTP check saved (the signals table). Each carries its
-- evidence as compact JSON and the sha256 of exactly that text, so anyone
-- can verify the hash (left null here: the stage computes evidence_sha256
-- as it reads the rows, evidenceSHA256 in pipeline/aggregate.go, at a
-- fraction of the cost of DuckDB's sha256). A decision the saved evidence
-- cannot support is null, with a note saying why; check/1 saves no page
-- text, so use_case_mention and agent_friendly_description are null for
-- every store.
--
-- Confidence rules:
--   price_clarity           0.9 from Product JSON-LD on a product page, 0.7
--                           from products.json, 0.5 when no product data
--                           was found (a page not read may still have it).
--   cart_blocker_suspicion  0.95 edge block, 0.9 robots.txt disallows the
--                           user-initiated agents, 0.7 another reason, 0.6
--                           none seen (plain HTTP cannot see blockers that
--                           only show in a browser).
--   readiness_score         the share of the score's seven signals that
--                           were measured (1 for a blocked store).
--
-- Each store's five rows are unnested from one scan of signals, in fact
-- order, so with the host order of signals they come out in key order
-- without a sort; each row then takes its fact's branch of the CASE.
WITH judged AS (
    SELECT
        *,
        coalesce(blocked, false) OR platform IS NOT NULL AS measured,
        list_filter([
            CASE WHEN blocked THEN 'edge_block' END,
            CASE WHEN NOT robots_users_allowed THEN 'robots_disallows_user_agents' END,
            CASE WHEN catalog_throttled THEN 'catalog_throttled' END,
            CASE WHEN storefront_mcp AND product_found AND NOT cart_link THEN 'cart_returned_no_checkout_link' END
        ], x -> x IS NOT NULL) AS reasons,
        unnest(['agent_friendly_description', 'cart_blocker_suspicion', 'price_clarity', 'readiness_score', 'use_case_mention']) AS fact
    FROM signals
),
facts AS (
    SELECT host, fact, checked_at, CASE fact
        WHEN 'agent_friendly_description' THEN {
            value: NULL::VARCHAR,
            confidence: NULL::DOUBLE,
            evidence: NULL::VARCHAR,
            source_url: NULL::VARCHAR,
            note: 'Not measured: the check method saves no product description text to judge.'
        }
        WHEN 'cart_blocker_suspicion' THEN {
            value: CASE WHEN measured THEN json_object('suspected', len(reasons) > 0, 'reasons', reasons)::VARCHAR END,
            confidence: CASE
                WHEN NOT measured THEN NULL
                WHEN blocked THEN 0.95
                WHEN list_contains(reasons, 'robots_disallows_user_agents') THEN 0.9
                WHEN len(reasons) > 0 THEN 0.7
                ELSE 0.6
            END::DOUBLE,
            evidence: CASE WHEN measured THEN json_object(
                'blocked', blocked,
                'block_reason', block_reason,
                'robots_chatgpt_user', robots_chatgpt_user,
                'robots_claude_user', robots_claude_user,
                'robots_perplexity_user', robots_perplexity_user,
                'catalog_throttled', catalog_throttled,
                'storefront_mcp', storefront_mcp,
                'product_found', product_found,
                'cart_link', cart_link)::VARCHAR
            END,
            source_url: CASE WHEN measured THEN 'https://' || host || '/' END,
            note: CASE
                WHEN NOT measured THEN 'Not measured: the homepage could not be checked as a shop.'
                ELSE 'Suspected when the edge blocked the check, robots.txt disallows ChatGPT-User, Claude-User or Perplexity-User, the catalog was throttled, or the storefront cart returned no checkout link for a found product.'
            END
        }
        WHEN 'price_clarity' THEN {
            value: CASE
                WHEN product_data_complete IS NULL THEN NULL
                WHEN product_data_source IS NULL THEN '"no_product"'
                WHEN product_price IS NULL THEN '"no_price"'
                WHEN product_currency IS NULL THEN '"price_without_currency"'
                ELSE '"clear"'
            END,
            confidence: CASE
                WHEN product_data_complete IS NULL THEN NULL
                WHEN product_data_source = 'jsonld' THEN 0.9
                WHEN product_data_source = 'products_json' THEN 0.7
                ELSE 0.5
            END::DOUBLE,
            evidence: CASE WHEN product_data_complete IS NOT NULL THEN json_object(
                'product_data_source', product_data_source,
                'product_url', product_url,
                'product_price', product_price,
                'product_currency', product_currency)::VARCHAR
            END,
            source_url: CASE WHEN product_data_complete IS NOT NULL THEN coalesce(product_url, 'https://' || host || '/') END,
            note: CASE
                WHEN product_data_complete IS NULL THEN 'Not measured: the homepage could not be checked as a shop.'
                ELSE 'clear: a price above 0 with a currency, from the saved product data. Confidence 0.9 from Product JSON-LD, 0.7 from products.json (which carries no currency), 0.5 when no product data was found.'
            END
        }
        WHEN 'readiness_score' THEN {
            value: score::VARCHAR,
            confidence: CASE
                WHEN score IS NULL THEN NULL
                WHEN blocked THEN 1.0
                ELSE round(score_inputs / 7.0, 3)
            END::DOUBLE,
            evidence: CASE WHEN score IS NOT NULL THEN json_object(
                'blocked', blocked,
                'catalog_answered', catalog_answered,
                'ucp_status', ucp_status,
                'product_data_complete', product_data_complete,
                'product_found', product_found,
                'webmcp', webmcp,
                'policies_all', policies_all,
                'robots_users_allowed', robots_users_allowed)::VARCHAR
            END,
            source_url: CASE WHEN score IS NOT NULL THEN 'https://' || host || '/' END,
            note: CASE
                WHEN score IS NULL THEN 'Not measured: the homepage could not be checked as a shop.'
                ELSE 'The store_answers score (formula in its table description); confidence is the share of its seven signals that were measured, 1 for a blocked store.'
            END
        }
        WHEN 'use_case_mention' THEN {
            value: NULL::VARCHAR,
            confidence: NULL::DOUBLE,
            evidence: NULL::VARCHAR,
            source_url: NULL::VARCHAR,
            note: 'Not measured: the check method saves no page text to read a use-case mention from.'
        }
    END AS f
    FROM judged
)
SELECT
    host,
    fact,
    f.value,
    f.confidence,
    NULL::VARCHAR AS evidence_sha256, -- sha256(evidence), computed by the stage
    f.evidence,
    f.source_url,
    checked_at,
    f.note
FROM facts;

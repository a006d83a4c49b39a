-- aggregate_agent_facts.sql: five typed decisions per store, read from the
-- fields the plain-HTTP check saved (the signals table). Each carries its
-- evidence as compact JSON and the sha256 of exactly that text, so anyone
-- can verify the hash (left null here: the stage computes evidence_sha256
-- as it reads the rows, evidenceSHA256 in pipeline/aggregate.go, at a
-- fraction of the cost of DuckDB's sha256). A decision the saved evidence
-- cannot support is null, with a note saying why.
--
-- use_case_mention and agent_friendly_description read the page text the
-- check saved: one description (checks.description_text, from the kept
-- product's JSON-LD or catalog description, else a meta description) and
-- the decisions the check made on it by the rules of
-- detect.JudgeDescription; they are null only when the pages gave no text.
--
-- Confidence rules:
--   use_case_mention        0.85 when a use-case phrase was found in a
--                           product's text, 0.6 when none was (absence may
--                           be wording the rule does not know); 0.7 and 0.4
--                           on the homepage's summary of the store, which
--                           is not where use cases are written.
--   agent_friendly_description  0.85 from the JSON-LD description, 0.8
--                           from the catalog's, 0.6 from a product page's
--                           meta description, 0.5 from the homepage's.
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
            value: CASE WHEN agent_friendly_description IS NOT NULL THEN json_object(
                'friendly', agent_friendly_description,
                'issues', description_issues::JSON)::VARCHAR
            END,
            confidence: CASE description_source
                WHEN 'jsonld' THEN 0.85
                WHEN 'catalog' THEN 0.8
                WHEN 'product_meta' THEN 0.6
                WHEN 'home_meta' THEN 0.5
            END::DOUBLE,
            evidence: CASE WHEN agent_friendly_description IS NOT NULL THEN json_object(
                'description_source', description_source,
                'description_url', description_url,
                'description_words', description_words,
                'description_text', description_text,
                'description_issues', description_issues::JSON)::VARCHAR
            END,
            source_url: CASE WHEN agent_friendly_description IS NOT NULL THEN coalesce(description_url, 'https://' || host || '/') END,
            note: CASE
                WHEN platform IS NULL THEN 'Not measured: the homepage could not be checked as a shop.'
                WHEN agent_friendly_description IS NULL THEN 'Not measured: the pages gave no description to judge (no product description, no meta description).'
                ELSE 'friendly: at least 20 words, no HTML tags or entities in a plain-text field, no placeholder text, more than the product''s name, and a concrete fact (a number, or a material, ingredient, fit or spec term). issues lists what failed. The text judged is in the evidence: the kept product''s JSON-LD description, else its catalog description, else a meta description; confidence 0.85 from JSON-LD, 0.8 from the catalog, 0.6 from a product page''s meta description, 0.5 from the homepage''s.'
            END
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
            value: CASE WHEN use_case_mention IS NOT NULL THEN json_object(
                'mentioned', use_case_mention,
                'phrases', use_case_phrases::JSON)::VARCHAR
            END,
            confidence: CASE
                WHEN use_case_mention IS NULL THEN NULL
                WHEN description_source = 'home_meta' THEN CASE WHEN use_case_mention THEN 0.7 ELSE 0.4 END
                WHEN use_case_mention THEN 0.85
                ELSE 0.6
            END::DOUBLE,
            evidence: CASE WHEN use_case_mention IS NOT NULL THEN json_object(
                'description_source', description_source,
                'description_url', description_url,
                'description_text', description_text,
                'use_case_phrases', use_case_phrases::JSON)::VARCHAR
            END,
            source_url: CASE WHEN use_case_mention IS NOT NULL THEN coalesce(description_url, 'https://' || host || '/') END,
            note: CASE
                WHEN platform IS NULL THEN 'Not measured: the homepage could not be checked as a shop.'
                WHEN use_case_mention IS NULL THEN 'Not measured: the pages gave no description to judge (no product description, no meta description).'
                ELSE 'mentioned: the text says what the product is for or who it is for: a purpose phrase (designed, made, ideal... for something other than sale, free or life), "for" an audience, activity, place or occasion of a fixed list (for sensitive skin, for trail running, for little ones), or a use phrase (use it to, wear it with, helps you, keeps you, whether you''re). phrases lists what was found. Confidence 0.85 found, 0.6 not found in a product''s text; 0.7 and 0.4 on the homepage''s summary.'
            END
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

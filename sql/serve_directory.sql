-- serve_directory.sql: agent-ready stores for GET /api/agent-checkout/stores
-- (spec 2.5 and 4.2.6): stores whose catalog found a product and whose cart
-- returned a checkout link in a check within the recent window. Category
-- matching only, not inventory search. Stores from the sources the precheck
-- answers with known=false (third-party lists, map-derived, campaign,
-- opted-out) are not listed. Newest checks first.
--
-- Parameters: $1 categories, comma-separated slugs ('' for every
-- category); $2 window start, Unix seconds; $3 the most rows to return.
-- total is the number of matches before the limit.
SELECT
    name,
    host,
    category,
    verdict,
    checked_at,
    svc_url,
    count(*) OVER () AS total
FROM store_answers
WHERE product_found
    AND cart_link
    AND checked_at >= to_timestamp($2)
    AND ($1 = '' OR list_contains(string_split($1, ','), category))
    AND source NOT IN ('third-party-list', 'map-derived', 'campaign', 'opted-out')
ORDER BY checked_at DESC, host
LIMIT $3;

-- serve_agent_facts_category.sql: measured agent facts of one category's
-- stores for GET /api/agent-facts?category= (spec 2.6; tool
-- list_category_agent_facts). Unmeasured decisions (null value) are left
-- out of a category listing; stores from the sources the precheck answers
-- with known=false are not listed. The limit counts stores: the first $3
-- stores by host that have a measured fact, each with all of them. By
-- host, then fact.
--
-- Parameters: $1 category slug; $2 one fact slug ('' for all); $3 the
-- most stores.
WITH measured AS (
    SELECT f.host, f.fact, f.value, f.confidence, f.evidence_sha256, f.evidence, f.source_url, f.checked_at, f.note
    FROM agent_facts AS f
    JOIN (
        SELECT host
        FROM stores
        WHERE category = $1
            AND source NOT IN ('third-party-list', 'map-derived', 'campaign', 'opted-out')
    ) AS s USING (host)
    WHERE f.value IS NOT NULL
        AND ($2 = '' OR f.fact = $2)
),
listed AS (
    SELECT DISTINCT host
    FROM measured
    ORDER BY host
    LIMIT $3
)
SELECT m.host, m.fact, m.value, m.confidence, m.evidence_sha256, m.evidence, m.source_url, m.checked_at, m.note
FROM measured AS m
JOIN listed USING (host)
ORDER BY m.host, m.fact;

-- aggregate_change_counts.sql: this run's week-over-week changes of the
-- adoption signals, for adoption.json's changes: gained counts stores whose
-- value became true, lost those whose value was true and no longer is (a
-- value that became unmeasured counts as lost from the measured count).
SELECT
    field,
    count(*) FILTER (WHERE current = 'true') AS gained,
    count(*) FILTER (WHERE previous = 'true') AS lost
FROM changes
WHERE week = getvariable('run_date')
    AND field IN ('agents_can_buy', 'buy_agent_catalog', 'cart_link', 'catalog_answered',
                  'listed', 'storefront_mcp', 'ucp_valid', 'webmcp')
GROUP BY field
ORDER BY field;

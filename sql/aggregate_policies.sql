-- aggregate_policies.sql: four rows per store, one per policy kind, from
-- the check's policy flags (null when the homepage was not checked as a
-- shop).
SELECT host, policy, found, checked_at
FROM (
    SELECT host, 'privacy' AS policy, policy_privacy AS found, checked_at FROM checks
    UNION ALL
    SELECT host, 'returns', policy_returns, checked_at FROM checks
    UNION ALL
    SELECT host, 'shipping', policy_shipping, checked_at FROM checks
    UNION ALL
    SELECT host, 'terms', policy_terms, checked_at FROM checks
)
ORDER BY host, policy;

-- aggregate_policies.sql: four rows per store, one per policy kind, from
-- the check's policy flags (null when the homepage was not checked as a
-- shop). One scan of signals: each store's four rows are unnested (the
-- two lists side by side) in policy order, so with the host order of
-- signals they come out in key order without a sort.
SELECT
    host,
    unnest(['privacy', 'returns', 'shipping', 'terms']) AS policy,
    unnest([policy_privacy, policy_returns, policy_shipping, policy_terms]) AS found,
    checked_at
FROM signals;

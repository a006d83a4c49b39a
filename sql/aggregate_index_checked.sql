-- aggregate_index_checked.sql: stores of the Index (the directory's own
-- stores: source seed or submitted; third-party-list, map-derived, campaign
-- and opted-out hosts are outside it, spec 2.2) with a completed check, for
-- protocols.json indexStoresChecked.
SELECT count(*)
FROM signals
WHERE checked AND source IN ('seed', 'submitted');

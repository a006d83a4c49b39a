-- aggregate_rechecks.sql: stores with a completed check in this run that
-- also had one in the previous run read (adoption.json rechecks).
SELECT count(*)
FROM signals AS s
JOIN prev_store_answers AS p USING (host)
WHERE s.checked AND p.checked_at IS NOT NULL;

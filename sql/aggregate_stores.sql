-- aggregate_stores.sql: the directory the crawl checked, with where each
-- store came from. added_on carries over from the previous run's stores
-- table (prev_stores, empty without history), else it is this run's date.
SELECT
    c.host,
    c.name,
    c.category,
    c.source,
    c.market AS country,
    s.id AS svc100_id,
    coalesce(p.added_on, getvariable('run_date')) AS added_on
FROM checks AS c
LEFT JOIN svc100 AS s USING (host)
LEFT JOIN prev_stores AS p USING (host)
ORDER BY c.host;

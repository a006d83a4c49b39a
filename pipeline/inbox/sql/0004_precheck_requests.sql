-- Prechecks are counted per request (spec 2.3): each row of the daily
-- per-host table carries the prechecks answered for its host and day,
-- added to with one atomic upsert per batch. Rows from before count 1, the
-- one request they are known to stand for.
ALTER TABLE precheck_rows ADD COLUMN n bigint NOT NULL DEFAULT 1 CHECK (n >= 1);

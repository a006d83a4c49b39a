-- aggregate_shard_misplaced.sql: the first row of a sharded run's
-- partitions whose host does not hash into the partition's shard, or no
-- row. The shard of a host is pipeline.ShardOf: the first 8 bytes of
-- sha256(host), big-endian, mod the shard count. A partition copied or
-- renamed to another shard shows up here.
--
-- Inputs: shard_files(file, shard, shards), one row per partition file, and
-- the view shard_rows(host, filename) over those files (filename as given
-- to read_parquet).
SELECT file, host, shard, belongs
FROM (
    SELECT
        f.file,
        r.host,
        f.shard,
        (('0x' || left(sha256(r.host), 16))::UBIGINT % f.shards::UBIGINT)::BIGINT AS belongs
    FROM shard_rows AS r
    JOIN shard_files AS f ON f.file = r.filename
)
WHERE belongs <> shard
ORDER BY file, host
LIMIT 1;

-- The inbox: every record the server accepted, oldest first by id. The data
-- is the record's JSON as written (json, not jsonb, keeps its bytes).
CREATE TABLE records (
	id   bigserial PRIMARY KEY,
	type text NOT NULL,
	at   timestamptz NOT NULL,
	data json NOT NULL
);
CREATE INDEX records_type_id ON records (type, id);

-- The HMAC secret every replica keys client networks with: one row, written
-- once (INSERT ... ON CONFLICT DO NOTHING) and read back.
CREATE TABLE secret (
	one   boolean PRIMARY KEY DEFAULT true CHECK (one),
	value bytea NOT NULL CHECK (length(value) >= 32)
);

-- The daily quota counters: one row per caller key (an HMAC, or 'site'),
-- quota and UTC day, taken with one statement that never goes over max.
CREATE TABLE quota_counts (
	key   text NOT NULL,
	quota text NOT NULL,
	day   date NOT NULL,
	n     integer NOT NULL CHECK (n >= 0),
	PRIMARY KEY (key, quota, day)
);

-- The daily per-host precheck table of spec 2.3: one row per host and UTC
-- day, nothing about the caller.
CREATE TABLE precheck_rows (
	host text NOT NULL,
	day  date NOT NULL,
	PRIMARY KEY (day, host)
);

-- The hosts store submission accepted: the primary key makes a host
-- accepted once across replicas; the record in records is the submission.
CREATE TABLE submitted_hosts (
	host     text PRIMARY KEY,
	category text NOT NULL DEFAULT '',
	at       timestamptz NOT NULL
);

-- The newest live check of each host, for the 24-hour cache every replica
-- reads (the check itself is also a record).
CREATE TABLE live_checks (
	host text PRIMARY KEY,
	at   timestamptz NOT NULL,
	data json NOT NULL
);

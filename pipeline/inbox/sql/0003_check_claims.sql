-- The hosts being checked live: a claim is a lease (until) with its
-- holder's token, so a replica that dies mid-check holds its host no longer
-- than the lease, and a claim holds no connection while the check runs.
CREATE TABLE check_claims (
	host  text PRIMARY KEY,
	token text NOT NULL,
	until timestamptz NOT NULL
);

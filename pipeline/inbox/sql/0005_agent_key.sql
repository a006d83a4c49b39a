-- svc's own UCP signing key (UCP Message Signatures, RFC 9421): the ECDSA
-- P-256 private key as a PKCS #8 PEM block, one row written once (the
-- first writer wins: INSERT ... ON CONFLICT DO NOTHING) and read back by
-- `svc serve`, which publishes its public key in svc's platform profile,
-- and by the pipeline, which signs its UCP requests with it. Like the
-- HMAC secret, it never leaves the database but to those two.
CREATE TABLE agent_key (
	one        boolean PRIMARY KEY DEFAULT true CHECK (one),
	pem        text NOT NULL CHECK (length(pem) > 0),
	created_at timestamptz NOT NULL DEFAULT now()
);

-- The outside leaderboard runs accepted, by duplicate key: the primary key
-- makes a run accepted once across replicas; the record in records is the
-- submission.
CREATE TABLE leaderboard_runs (
	key    text PRIMARY KEY,
	id     text NOT NULL,
	status text NOT NULL
);

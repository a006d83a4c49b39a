package publish

// Paths of the precomputed documents under the public root (out/files/ of a
// run folder, public/ of the tree), each defined here once: the aggregate
// stage writes them, Publish versions them, the pages and the server read
// them. Their Go types are defined here too, one file each: adoption.go,
// protocols.go, leaderboard.go and weekly.go.
const (
	AdoptionPath             = "api/agent-checkout/adoption.json" // spec 2.8
	ProtocolsPath            = "api/protocols.json"               // spec 2.9
	LeaderboardPath          = "api/leaderboard.json"             // GET /api/leaderboard
	LeaderboardStoresPath    = "api/leaderboard-stores.json"      // GET /api/leaderboard?stores=1
	LeaderboardCSVPath       = "api/leaderboard.csv"              // GET /api/leaderboard?format=csv
	LeaderboardStoresCSVPath = "api/leaderboard-stores.csv"       // GET /api/leaderboard?stores=1&format=csv
	// WeeklyDir holds the frozen weekly editions, one per post date.
	WeeklyDir = "api/weekly/agent-checkout"
	// WeeklyLatest is the newest weekly edition, rewritten when a newer
	// edition is published.
	WeeklyLatest = "api/weekly/agent-checkout.json"
)

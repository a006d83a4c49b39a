package publish

// Helpers of the internal tests, for the external tests that run Publish
// on other stores (bucketstore_test.go).
var (
	SnapshotForTest      = testSnapshot
	CrashSnapshotForTest = crashSnapshot
	NextVersionForTest   = nextVersion
	ColumnsForTest       = columns
	StoreRowsForTest     = storeRows
)

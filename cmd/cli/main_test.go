package cli

import (
	"os"
	"testing"
)

// TestMain keeps every command run by the tests offline: the UCP schemas
// are never fetched from ucp.dev (without ../shared, validation reports that
// the schema could not be loaded, as it would on an air-gapped server).
func TestMain(m *testing.M) {
	os.Setenv("SVC_UCP_OFFLINE", "1")
	os.Exit(m.Run())
}

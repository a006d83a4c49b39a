package cli

import "svc/cmd/internal/ciclient"

// The names check_test.go reads, from the ciclient package the client moved to;
// the tests themselves stayed as they were.
const (
	statusPass       = ciclient.StatusPass
	statusFail       = ciclient.StatusFail
	statusUnmeasured = ciclient.StatusUnmeasured
	checkDefaultAPI  = ciclient.DefaultAPI
	checkUserAgent   = ciclient.UserAgent
)

var checkNames = ciclient.Names

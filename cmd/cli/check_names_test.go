package cli

import "svc/cmd/internal/gate"

// The names check_test.go reads, from the gate package the client moved to;
// the tests themselves stayed as they were.
const (
	statusPass       = gate.StatusPass
	statusFail       = gate.StatusFail
	statusUnmeasured = gate.StatusUnmeasured
	checkDefaultAPI  = gate.DefaultAPI
	checkUserAgent   = gate.UserAgent
)

var checkNames = gate.Names

package publish

import "svc/datasets/svc100"

// This package's tests run over the fixture world, whose stores play
// SVC-100 v1 (the fixture stand-ins), as svc does in fixture mode.
func init() { svc100.UseFixtureStandIns() }

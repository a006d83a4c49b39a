package check

// FixtureMode reports whether the engine's client routes *.test hosts to a
// fixture world (--fixture-addr): only then are those names checkable.
func (e *Engine) FixtureMode() bool { return e != nil && e.client != nil && e.client.FixtureMode() }

package shop

// Paths C and D are not built yet: they report not_attempted.

type LLMConfig struct{ URL, Model, Key string }

func (c LLMConfig) Configured() bool { return c.URL != "" && c.Model != "" }

var webmcpObserver = ""

func (s *session) webmcp() error { return s.end(NotAttempted, "not_implemented") }
func (s *session) model() error  { return s.end(NotAttempted, "not_implemented") }

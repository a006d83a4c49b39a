package detect

// Purpose says why an AI agent fetches pages; a store may welcome one kind
// and refuse another, so the report groups verdicts by it.
type Purpose string

// The agent purposes.
const (
	// PurposeTraining: collects pages to train models.
	PurposeTraining Purpose = "training"
	// PurposeSearch: indexes pages for an AI search or answer product.
	PurposeSearch Purpose = "search"
	// PurposeUser: fetches a page because a user asked, in the moment.
	PurposeUser Purpose = "user"
)

// Agent is one AI crawler or control token that robots.txt can address.
type Agent struct {
	// Token is the robots.txt product token.
	Token    string  `json:"token"`
	Purpose  Purpose `json:"purpose"`
	Operator string  `json:"operator"`
	// TokenOnly marks a control token that no crawler sends: the operator's
	// ordinary crawler fetches, and the token only says whether the content
	// may be used for AI (Google-Extended, Applebot-Extended).
	TokenOnly bool `json:"tokenOnly,omitempty"`
}

// agents is the fixed list the report covers, in report order.
var agents = []Agent{
	{Token: "GPTBot", Purpose: PurposeTraining, Operator: "OpenAI"},
	{Token: "OAI-SearchBot", Purpose: PurposeSearch, Operator: "OpenAI"},
	{Token: "ChatGPT-User", Purpose: PurposeUser, Operator: "OpenAI"},
	{Token: "ClaudeBot", Purpose: PurposeTraining, Operator: "Anthropic"},
	{Token: "Claude-SearchBot", Purpose: PurposeSearch, Operator: "Anthropic"},
	{Token: "Claude-User", Purpose: PurposeUser, Operator: "Anthropic"},
	{Token: "PerplexityBot", Purpose: PurposeSearch, Operator: "Perplexity"},
	{Token: "Perplexity-User", Purpose: PurposeUser, Operator: "Perplexity"},
	{Token: "Google-Extended", Purpose: PurposeTraining, Operator: "Google", TokenOnly: true},
	{Token: "Applebot-Extended", Purpose: PurposeTraining, Operator: "Apple", TokenOnly: true},
	{Token: "CCBot", Purpose: PurposeTraining, Operator: "Common Crawl"},
	{Token: "Bytespider", Purpose: PurposeTraining, Operator: "ByteDance"},
}

// AIAgents returns the AI agents the robots report covers, in report order.
// It returns a copy so callers cannot change the list for everyone.
func AIAgents() []Agent {
	return append([]Agent(nil), agents...)
}

// AgentVerdict is one agent's robots.txt verdicts.
type AgentVerdict struct {
	Agent Agent `json:"agent"`
	// Home is the verdict for "/".
	Home RobotsMatch `json:"home"`
	// Product is the verdict for the product path; nil when none was given.
	Product *RobotsMatch `json:"product,omitempty"`
}

// RobotsReport gives every agent of AIAgents its verdict for "/" and, when
// productPath is not empty, for that path (a path or a full URL). A nil r
// (robots.txt not checked) gives nil, so the result stays unmeasured rather
// than reading as "no rule".
func RobotsReport(r *Robots, productPath string) []AgentVerdict {
	if r == nil {
		return nil
	}
	out := make([]AgentVerdict, len(agents))
	for i, a := range agents {
		out[i] = AgentVerdict{Agent: a, Home: r.Match(a.Token, "/")}
		if productPath != "" {
			m := r.Match(a.Token, productPath)
			out[i].Product = &m
		}
	}
	return out
}

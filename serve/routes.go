package serve

import (
	"net/http"
	"strings"
)

// route is one registered endpoint; the list is also what the OpenAPI
// description is checked against.
type route struct {
	pattern string // method and path, as http.ServeMux takes it
	handler func(s *Server) handlerFunc
}

// routes lists every endpoint, in one place.
var routeTable = []route{
	{"GET /api/agent-checkout", func(s *Server) handlerFunc { return s.agentCheckout }},
	{"GET /api/agent-checkout/adoption", func(s *Server) handlerFunc { return s.adoption }},
	{"GET /api/agent-checkout/stores", func(s *Server) handlerFunc { return s.directory }},
	{"GET /api/agent-checkout/product-data", func(s *Server) handlerFunc { return s.productData }},
	{"GET /api/agent-facts", func(s *Server) handlerFunc { return s.agentFacts }},
	{"GET /api/store", func(s *Server) handlerFunc { return s.storeHub }},
	{"GET /api/precheck", func(s *Server) handlerFunc { return s.precheck }},
	{"GET /api/precheck/stats", func(s *Server) handlerFunc { return s.precheckStats }},
	{"POST " + reportPath, func(s *Server) handlerFunc { return s.reportCheckout }},
	{"GET /api/ucp/validate", func(s *Server) handlerFunc { return s.ucpValidateGet }},
	{"POST /api/ucp/validate", func(s *Server) handlerFunc { return s.ucpValidatePost }},
	{"GET /api/protocols", func(s *Server) handlerFunc { return s.protocols }},
	{"GET /api/leaderboard", func(s *Server) handlerFunc { return s.leaderboard }},
	{"GET /api/leaderboard/submit", func(s *Server) handlerFunc { return s.leaderboardSubmitInfo }},
	{"POST /api/leaderboard/submit", func(s *Server) handlerFunc { return s.leaderboardSubmit }},
	{"POST /api/stores/submit", func(s *Server) handlerFunc { return s.storesSubmit }},
	{"GET /api/weekly/agent-checkout.json", func(s *Server) handlerFunc { return s.weeklyLatest }},
	{"GET /api/weekly/agent-checkout/{edition}", func(s *Server) handlerFunc { return s.weeklyFile }},
	{"GET /data/{path...}", func(s *Server) handlerFunc { return s.dataFile }},
	{"GET /api/ask", func(s *Server) handlerFunc { return s.askGet }},
	{"POST /api/ask", func(s *Server) handlerFunc { return s.mcpEndpoint }},
	{"GET /.well-known/mcp.json", func(s *Server) handlerFunc { return s.mcpCard }},
	{"GET /.well-known/ucp", func(s *Server) handlerFunc { return s.ucpProfile }},
	{"GET /openapi.json", func(s *Server) handlerFunc { return s.openapi }},
	{"GET /.well-known/openapi.json", func(s *Server) handlerFunc { return s.openapi }},
	// Pages for people (pages.go).
	{"GET /{$}", func(s *Server) handlerFunc { return s.page }},
	{"GET /index.html", func(s *Server) handlerFunc { return s.page }},
	{"GET /ATTRIBUTION.txt", func(s *Server) handlerFunc { return s.page }},
	{"GET /directory/{path...}", func(s *Server) handlerFunc { return s.page }},
	{"GET /stores/{path...}", func(s *Server) handlerFunc { return s.storePage }},
	{"GET /leaderboard/{path...}", func(s *Server) handlerFunc { return s.page }},
	{"GET /weekly/{path...}", func(s *Server) handlerFunc { return s.page }},
	{"GET /validate/{path...}", func(s *Server) handlerFunc { return s.validatePage }},
	{"POST /validate/{path...}", func(s *Server) handlerFunc { return s.validatePost }},
	{"GET /data/{$}", func(s *Server) handlerFunc { return s.datasetsPage }},
	{"GET /datasets/{path...}", func(s *Server) handlerFunc { return s.page }},
	{"GET /assets/{name}", func(s *Server) handlerFunc { return s.asset }},
	{"GET /favicon.ico", func(s *Server) handlerFunc { return s.favicon }},
}

// routes registers every endpoint. GET patterns also answer HEAD.
func (s *Server) routes(mux *http.ServeMux) {
	for _, rt := range routeTable {
		mux.Handle(rt.pattern, s.adapt(rt.pattern, rt.handler(s)))
	}
	// Everything else: a precomputed file under public/api/ at its own
	// path (the manifest lists them there), a JSON 405 when the path exists
	// for another method, else a JSON 404.
	mux.Handle("/", s.adapt("not found", func(w http.ResponseWriter, r *http.Request) error {
		if served, err := s.apiFile(w, r); served {
			return err
		}
		var allow []string
		for _, m := range []string{http.MethodGet, http.MethodPost} {
			r2 := r.Clone(r.Context())
			r2.Method = m
			if _, p := mux.Handler(r2); p != "/" {
				allow = append(allow, m)
			}
		}
		if len(allow) > 0 {
			w.Header().Set("Allow", strings.Join(allow, ", "))
			return fail(ErrMethod, "%s is not allowed on %s; use %s", r.Method, r.URL.Path, strings.Join(allow, " or "))
		}
		return fail(ErrNotFound, "no such endpoint: %s %s (see /openapi.json)", r.Method, r.URL.Path)
	}))
}

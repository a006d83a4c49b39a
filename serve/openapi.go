package serve

import (
	_ "embed"
	"net/http"
)

// openapiJSON is the OpenAPI 3.1.0 description of the REST API (issue 8),
// served at /openapi.json and /.well-known/openapi.json. openapi_test.go
// checks it against routeTable and validates its examples.
//
//go:embed openapi.json
var openapiJSON []byte

var openapiFile = newFile("openapi.json", openapiJSON)

// openapi serves the embedded description with its ETag (304 on a match).
func (s *Server) openapi(w http.ResponseWriter, r *http.Request) error {
	return serveFile(w, r, openapiFile, cacheFiveMinutes)
}

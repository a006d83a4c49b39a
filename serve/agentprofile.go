package serve

import (
	"net/http"

	"svc/pipeline/leaderboard"
)

// ucpProfileFile is svc's own UCP platform profile (issue 21), the
// document the pipeline's UCP path names in UCP-Agent. It is built by the
// binary, not read from a snapshot: it describes what svc's agent speaks,
// not the data, so no published snapshot changes for it and the answer is
// the same with --data DIR or s3://.
var ucpProfileFile = newBareFile("ucp.json", leaderboard.PlatformProfile())

// ucpProfile serves GET /.well-known/ucp with its ETag (304 on a match).
// UCP overview "Profile Requirements", Hosting: no redirect, Cache-Control
// public with max-age of at least 60 seconds, a validator (ETag).
func (s *Server) ucpProfile(w http.ResponseWriter, r *http.Request) error {
	return serveFile(w, r, ucpProfileFile, cacheFiveMinutes)
}

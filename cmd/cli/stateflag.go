package cli

import (
	"strings"

	"github.com/spf13/cobra"

	"svc/pipeline"
	"svc/pipeline/inbox"
)

// stateFlag is --state of the stages that read the submissions the server
// accepted (crawl, aggregate, run, schedule): the same value svc serve is
// given, so the pipeline reads the inbox the server writes.
type stateFlag struct{ value string }

func (s *stateFlag) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&s.value, "state", envOr("SVC_STATE", ""),
		"where svc serve keeps accepted submissions (env SVC_STATE): empty for DATA/state, a folder, or the postgres://… database replicas share")
}

// validate refuses a URL that is not a PostgreSQL one (an s3:// state, a
// typo'd scheme): a folder of that name would silently read nothing.
func (s *stateFlag) validate() error {
	if strings.Contains(s.value, "://") && !inbox.IsPostgres(s.value) {
		return usagef("--state %q: want a folder or postgres://…", redactURL(s.value))
	}
	return nil
}

// env returns the stage environment with the state set.
func (s *stateFlag) env(e pipeline.StageEnv) pipeline.StageEnv {
	e.State = s.value
	return e
}

// redactURL drops the user information of a URL for a message.
func redactURL(s string) string {
	i := strings.Index(s, "://")
	if i < 0 {
		return s
	}
	if j := strings.LastIndex(s[i:], "@"); j >= 0 {
		return s[:i+3] + "…" + s[i+j:]
	}
	return s
}

package cli

import (
	"path/filepath"

	"github.com/spf13/cobra"

	"svc/pipeline/fetch"
	"svc/pipeline/ucp"
)

// ucpSchemaFlags is the schema-source flag shared by every command that
// validates UCP profiles (probe, crawl, validate, ucp validate, serve).
type ucpSchemaFlags struct {
	dir     string
	offline bool
}

func (f *ucpSchemaFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.dir, "ucp-schema-dir", envOr("SVC_UCP_SCHEMA_DIR", ""),
		"folder holding the UCP schemas as <release>/<path> (env SVC_UCP_SCHEMA_DIR); when empty they are fetched from ucp.dev once and cached under DATA/state/")
	cmd.Flags().BoolVar(&f.offline, "ucp-offline", envOr("SVC_UCP_OFFLINE", "") != "",
		"never fetch the UCP schemas from ucp.dev (env SVC_UCP_OFFLINE); without --ucp-schema-dir or a cache, no profile is called valid")
}

// validator builds the UCP validator over the chosen schema source.
func (f *ucpSchemaFlags) validator(g *globals, client *fetch.Client) (*ucp.Validator, error) {
	v, err := ucp.New(g.ctx(), ucp.Config{
		SchemaDir: f.dir,
		CacheDir:  filepath.Join(g.data, "state", "ucp-schema"),
		Client:    client,
		Offline:   f.offline,
	})
	if err != nil {
		return nil, usagef("--ucp-schema-dir: %v", err)
	}
	return v, nil
}

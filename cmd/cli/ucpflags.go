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
	dir string
}

func (f *ucpSchemaFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.dir, "ucp-schema-dir", envOr("SVC_UCP_SCHEMA_DIR", ""),
		"folder holding the UCP schemas as <release>/<path> (env SVC_UCP_SCHEMA_DIR); when empty they are fetched from ucp.dev once and cached under DATA/state/")
}

// validator builds the UCP validator over the chosen schema source.
func (f *ucpSchemaFlags) validator(g *globals, client *fetch.Client) (*ucp.Validator, error) {
	v, err := ucp.New(g.ctx(), ucp.Config{
		SchemaDir: f.dir,
		CacheDir:  filepath.Join(g.data, "state", "ucp-schema"),
		Client:    client,
	})
	if err != nil {
		return nil, usagef("--ucp-schema-dir: %v", err)
	}
	return v, nil
}

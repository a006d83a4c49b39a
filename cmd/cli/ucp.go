package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"svc/pipeline/fetch"
	"svc/pipeline/ucp"
)

// ucpValidateOptions holds the flags and argument of `svc ucp validate`.
type ucpValidateOptions struct {
	*globals
	ucpFlags ucpSchemaFlags
	target   string // URL, host, file or "-"
	json     bool
	deep     bool

	in io.Reader // standard input, read when target is "-"
}

func newUCPCmd(g *globals) *cobra.Command { return newUCPCmdWith(g, nil) }

// newUCPCmdWith builds `svc ucp`; runF, when set, is called with the parsed
// options of `svc ucp validate` instead of ucpValidateRun, so flag tests run
// nothing.
func newUCPCmdWith(g *globals, runF func(*ucpValidateOptions) error) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "ucp",
		Short: "Work with UCP (Universal Commerce Protocol) business profiles",
		Long: `Work with UCP business profiles, the document a store serves at
https://<host>/.well-known/ucp to tell AI agents which commerce services and
capabilities it offers.`,
	}
	cmd.AddCommand(newUCPValidateCmd(g, runF))
	return cmd
}

func newUCPValidateCmd(g *globals, runF func(*ucpValidateOptions) error) *cobra.Command {
	opts := &ucpValidateOptions{globals: g}
	cmd := &cobra.Command{
		Use:   "validate (URL|FILE|-)",
		Short: "Validate a UCP business profile against the UCP 2026-08-25 schema and spec rules",
		Long: `Validate a UCP business profile and print the report: a summary for people,
or with --json the report of the API (GET /api/ucp/validate).

The argument is one of:
  URL or host   fetch the profile through the safe client. A host or any page
                of a store is read from https://<host>/.well-known/ucp; a URL
                whose path is under /.well-known/ucp or ends in .json is read
                as given. At most 3 redirects, 6 seconds. The hosting checks
                run too: HTTPS, no redirect, status 200, Cache-Control public
                with max-age of at least 60, ETag or Last-Modified, JSON
                content type; and the supported_versions profiles are fetched.
  FILE          read a pasted profile from a file (no network access at all)
  -             read a pasted profile from standard input

The profile is checked against the UCP 2026-08-25 JSON Schema (business entry
point of profile.json) and every rule of the spec the schema cannot express:
authority binding of schema URLs, https spec and endpoint URLs, orphaned
extensions, versions, signing keys, and more. Each finding names its rule,
the JSON pointer it concerns and the spec section. Items marked "svc hint"
are this service's advice, not UCP requirements. A profile is valid when the
schema check ran and passed and no error-level rule fired; warnings and info
never make it invalid. Validation is not certification: a valid profile does
not prove its endpoints work.

Schemas come from --ucp-schema-dir (env SVC_UCP_SCHEMA_DIR), a folder laid out
as https://ucp.dev/<release>/schemas/, or else from ucp.dev, fetched once and
cached under DATA/state/ucp-schema. If they cannot be loaded the rules still
run, but no profile is called valid.

Exit status: 0 valid, 1 invalid, 2 the profile could not be fetched,
64 usage (bad arguments, an unsafe URL, an unreadable or too large file).`,
		Example: `  svc ucp validate shop.example.com
  svc ucp validate https://shop.example.com/.well-known/ucp --json
  svc ucp validate --ucp-schema-dir ../shared/ucp/schema profile.json
  curl -s https://shop.example.com/.well-known/ucp | svc ucp validate -`,
		Args: argsUsage(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.target = args[0]
			opts.in = cmd.InOrStdin()
			if runF != nil {
				return runF(opts)
			}
			return ucpValidateRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print the JSON report instead of the summary")
	cmd.Flags().BoolVar(&opts.deep, "deep", false, "also fetch the third-party schema documents the profile references and check their hosting")
	opts.ucpFlags.register(cmd)
	return cmd
}

// ucpInput says how the argument is read.
type ucpInput int

const (
	inputURL ucpInput = iota
	inputFile
	inputStdin
)

// classifyTarget decides whether the argument is a URL, a file or stdin: an
// existing file wins; a name that looks like a path (a separator, a leading
// dot, a .json suffix) is a file even when missing, so a typo is reported
// instead of fetched as a host.
func classifyTarget(t string) ucpInput {
	switch {
	case t == "-":
		return inputStdin
	case strings.Contains(t, "://"):
		return inputURL
	}
	if st, err := os.Stat(t); err == nil && !st.IsDir() {
		return inputFile
	}
	if strings.ContainsAny(t, `/\`) || strings.HasPrefix(t, ".") || strings.HasSuffix(strings.ToLower(t), ".json") {
		return inputFile
	}
	return inputURL
}

func ucpValidateRun(ctx context.Context, opts *ucpValidateOptions) error {
	kind := classifyTarget(opts.target)
	var profile []byte
	switch kind {
	case inputStdin:
		b, err := io.ReadAll(io.LimitReader(opts.in, ucp.MaxProfileBytes+1))
		if err != nil {
			return usagef("read standard input: %v", err)
		}
		profile = b
	case inputFile:
		b, err := readLimited(opts.target, ucp.MaxProfileBytes+1)
		if err != nil {
			return usagef("%v", err)
		}
		profile = b
	}
	var client *fetch.Client
	if kind == inputURL || opts.ucpFlags.dir == "" {
		c, err := opts.newClient()
		if err != nil {
			return err
		}
		client = c
	}
	v, err := opts.ucpFlags.validator(opts.globals, client)
	if err != nil {
		return err
	}
	var r *ucp.Report
	if kind == inputURL {
		r, err = v.ValidateURL(ctx, opts.target, ucp.URLOptions{Deep: opts.deep})
	} else {
		r, err = v.Validate(ctx, profile)
	}
	switch {
	case errors.Is(err, fetch.ErrRefused):
		return usagef("%v", err)
	case errors.Is(err, ucp.ErrTooLarge) && kind != inputURL:
		return usagef("%s: %v", opts.target, err)
	case errors.Is(err, ucp.ErrTooLarge):
		return exitWith(ExitFailed, fmt.Errorf("the profile is refused: %w", err))
	case err != nil:
		return exitWith(ExitUnreachable, err)
	}
	var buf bytes.Buffer
	if opts.json {
		enc := json.NewEncoder(&buf)
		enc.SetIndent("", "  ")
		if err := enc.Encode(r); err != nil {
			return fmt.Errorf("encode report: %w", err)
		}
	} else {
		printUCPReport(&buf, r)
	}
	if _, err := opts.out.Write(buf.Bytes()); err != nil {
		return err
	}
	switch {
	case r.FetchFailed():
		return exitWith(ExitUnreachable, nil)
	case !r.IsValid():
		return exitWith(ExitFailed, nil)
	}
	return nil
}

// readLimited reads at most limit bytes of a file.
func readLimited(name string, limit int64) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	return b, nil
}

// printUCPReport writes the human summary of a report.
func printUCPReport(w io.Writer, r *ucp.Report) {
	switch r.Source.Type {
	case "url":
		status := "no answer"
		if r.Source.Status != 0 {
			status = fmt.Sprintf("HTTP %d", r.Source.Status)
		}
		fmt.Fprintf(w, "profile   %s (%s)\n", r.Source.ProfileURL, status)
		if r.Source.FinalURL != "" && r.Source.FinalURL != r.Source.ProfileURL {
			fmt.Fprintf(w, "          redirected to %s\n", r.Source.FinalURL)
		}
	default:
		fmt.Fprintf(w, "profile   pasted, %d bytes\n", r.Source.Bytes)
	}
	verdict := "INVALID"
	switch {
	case r.Valid == nil:
		verdict = "NOT READ (no verdict: the profile could not be read)"
	case *r.Valid:
		verdict = "VALID"
	case r.Counts.Errors == 0 && !r.Schema.Checked:
		verdict = "NOT VALID (the JSON Schema check did not run)"
	}
	fmt.Fprintf(w, "verdict   %s: %s, %s, %d info\n", verdict, count(r.Counts.Errors, "error"), count(r.Counts.Warnings, "warning"), r.Counts.Info)
	schema := "not checked"
	switch {
	case r.Schema.Error != "":
		schema = "could not be loaded: " + r.Schema.Error
	case r.Schema.Checked && *r.Schema.Valid:
		schema = "passed"
	case r.Schema.Checked:
		schema = fmt.Sprintf("failed (%d errors)", r.Schema.ErrorCount)
	}
	fmt.Fprintf(w, "schema    UCP %s business profile: %s\n", r.Schema.Release, schema)
	fmt.Fprintf(w, "          from %s %s\n", r.SchemaSource.Type, r.SchemaSource.Location)
	if r.DeclaredVersion != nil {
		fmt.Fprintf(w, "version   %s\n", *r.DeclaredVersion)
	}
	for _, sec := range []struct {
		name  string
		items []ucp.Item
	}{{"errors", r.Errors}, {"warnings", r.Warnings}, {"info", r.Info}} {
		if len(sec.items) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%s\n", sec.name)
		for _, it := range sec.items {
			path := it.Path
			if path == "" {
				path = "(document)"
			}
			hint := ""
			if it.Hint {
				hint = "  [svc hint, not a UCP requirement]"
			}
			fmt.Fprintf(w, "  %s  %s%s\n    %s\n    %s\n", it.Rule, path, hint, it.Message, it.SpecURL)
		}
	}
	if len(r.HTTPChecks) > 0 {
		fmt.Fprintf(w, "\nhosting\n")
		for _, c := range r.HTTPChecks {
			fmt.Fprintf(w, "  %-7s %-22s %s\n", c.Status, c.Rule, c.Detail)
		}
	}
	fmt.Fprintf(w, "\n%s\n%s\n", r.Summary, r.Note)
}

// count words n things: "1 error", "2 errors".
func count(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

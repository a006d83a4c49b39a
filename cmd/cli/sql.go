package cli

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"svc/datasets/duck"
)

// sqlOptions holds the flags of `svc sql`.
type sqlOptions struct {
	*globals
	query   string
	version string
	maxRows int
}

func newSQLCmd(g *globals) *cobra.Command { return newSQLCmdWith(g, nil) }

// newSQLCmdWith builds `svc sql`; runF, when set, is called with the parsed
// options instead of sqlRun, so flag tests run nothing.
func newSQLCmdWith(g *globals, runF func(*sqlOptions) error) *cobra.Command {
	o := &sqlOptions{globals: g}
	cmd := &cobra.Command{
		Use:   "sql [QUERY]",
		Short: "Query the published datasets with DuckDB",
		Long: `Run SQL over the published datasets with an in-process DuckDB. Every table
(store_answers, stores, checks, ucp_validations, agent_facts, product_data,
policies, leaderboard_results, changes) is a view over its Parquet file in
DATA/public/data/latest (or --version), with column comments: try
  SELECT * FROM duckdb_columns() WHERE table_name = 'store_answers'

The query comes from the argument, or from standard input when there is
none; several statements separated by ';' run in order and the last one's
rows are printed as a table. DuckDB runs offline: extensions are never
downloaded.`,
		Example: `  svc sql "SELECT verdict, count(*) FROM store_answers GROUP BY 1 ORDER BY 2 DESC"
  echo "SELECT platform, avg(score) FROM store_answers GROUP BY 1" | svc sql`,
		Args: argsUsage(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				o.query = args[0]
			} else {
				b, err := io.ReadAll(io.LimitReader(cmd.InOrStdin(), 1<<20))
				if err != nil {
					return err
				}
				o.query = string(b)
			}
			if strings.TrimSpace(o.query) == "" {
				return usagef("no query: pass one as the argument or on standard input")
			}
			if o.maxRows < 1 {
				return usagef("--max-rows must be at least 1")
			}
			if strings.ContainsAny(o.version, "/\\") || strings.HasPrefix(o.version, ".") {
				return usagef("--version %q is not a version folder name", o.version)
			}
			if runF != nil {
				return runF(o)
			}
			return sqlRun(cmd.Context(), o)
		},
	}
	cmd.Flags().StringVar(&o.version, "version", "latest", "dataset version folder under DATA/public/data/")
	cmd.Flags().IntVar(&o.maxRows, "max-rows", 1000, "rows printed at most")
	return cmd
}

func sqlRun(ctx context.Context, o *sqlOptions) error {
	db, err := duck.OpenDatasets(ctx, filepath.Join(o.data, "public", "data", o.version), nil)
	if err != nil {
		return err
	}
	defer db.Close()
	stmts := splitStatements(o.query)
	for _, s := range stmts[:len(stmts)-1] {
		if _, err := db.ExecContext(ctx, s); err != nil {
			return &usageError{fmt.Errorf("sql: %w", err)}
		}
	}
	rows, err := db.QueryContext(ctx, stmts[len(stmts)-1])
	if err != nil {
		return &usageError{fmt.Errorf("sql: %w", err)}
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(o.out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(cols, "\t"))
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	n := 0
	for rows.Next() {
		if n == o.maxRows {
			tw.Flush()
			fmt.Fprintf(o.out, "(more rows; showing the first %d — raise --max-rows)\n", o.maxRows)
			return nil
		}
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		cells := make([]string, len(vals))
		for i, v := range vals {
			cells[i] = formatCell(v)
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
		n++
	}
	if err := rows.Err(); err != nil {
		return &usageError{fmt.Errorf("sql: %w", err)}
	}
	tw.Flush()
	fmt.Fprintf(o.out, "(%d rows)\n", n)
	return nil
}

// formatCell prints NULL as NULL (unmeasured), never as an empty or zero.
func formatCell(v any) string {
	switch t := v.(type) {
	case nil:
		return "NULL"
	case time.Time:
		return t.UTC().Format("2006-01-02 15:04:05.000000Z")
	case []byte:
		return string(t)
	case string:
		return strings.ReplaceAll(strings.ReplaceAll(t, "\t", " "), "\n", " ")
	}
	return fmt.Sprint(v)
}

// splitStatements splits on ';' outside quotes and drops empty statements.
func splitStatements(q string) []string {
	var out []string
	var b strings.Builder
	var quote rune
	for _, r := range q {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '\'' || r == '"':
			quote = r
		case r == ';':
			if s := strings.TrimSpace(b.String()); s != "" {
				out = append(out, s)
			}
			b.Reset()
			continue
		}
		b.WriteRune(r)
	}
	if s := strings.TrimSpace(b.String()); s != "" {
		out = append(out, s)
	}
	if len(out) == 0 {
		out = []string{q}
	}
	return out
}

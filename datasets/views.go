package datasets

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"text/template"

	svcsql "svc/sql"
)

var viewTemplate = template.Must(template.New("view.sql").Funcs(template.FuncMap{
	"ident":   quoteIdent,
	"literal": quoteLiteral,
}).Parse(svcsql.Text("view.sql")))

// ViewSQL returns DuckDB statements that create (or replace) a view named
// after t over the given Parquet files (paths or globs, as read_parquet takes
// them), with the definition's descriptions as view and column comments. A
// sharded table passes one file per partition.
func (t *Table) ViewSQL(files ...string) (string, error) {
	return t.viewSQL(nil, files)
}

// duckTypes is the DuckDB type of each column type, for the NULL that
// stands in for a column a file lacks.
var duckTypes = map[Type]string{
	String: "VARCHAR", Bool: "BOOLEAN", Int64: "BIGINT", Float64: "DOUBLE",
	Timestamp: "TIMESTAMP WITH TIME ZONE", Date: "DATE", JSON: "VARCHAR",
}

func (t *Table) viewSQL(absent map[string]bool, files []string) (string, error) {
	if err := t.Validate(); err != nil {
		return "", fmt.Errorf("view sql: %w", err)
	}
	if len(files) == 0 {
		return "", fmt.Errorf("view sql %s: no files", t.Name)
	}
	var b strings.Builder
	types := map[string]string{}
	for _, c := range t.Columns {
		if absent[c.Name] {
			types[c.Name] = duckTypes[c.Type]
		}
	}
	err := viewTemplate.Execute(&b, struct {
		*Table
		Files  []string
		Absent map[string]string
	}{t, files, types})
	if err != nil {
		return "", fmt.Errorf("view sql %s: %w", t.Name, err)
	}
	return b.String(), nil
}

// ViewsSQL returns the views of every table over dir/<table>.parquet, where
// dir is a published version folder (or latest/). svc sql and the serve read
// layer run it on a fresh in-process DuckDB. A column a file lacks (a
// snapshot published before the column was added) reads as NULL.
func ViewsSQL(dir string, tables []*Table) (string, error) {
	var parts []string
	for _, t := range tables {
		var absent map[string]bool
		names := make([]string, len(t.Columns))
		for i, c := range t.Columns {
			names[i] = c.Name
		}
		if f, missing, err := OpenParquetPresentColumns(dir, t, names); err == nil {
			f.Close()
			absent = map[string]bool{}
			for _, c := range missing {
				absent[c] = true
			}
		}
		s, err := t.viewSQL(absent, []string{filepath.Join(dir, t.Name+".parquet")})
		if err != nil {
			return "", err
		}
		parts = append(parts, s)
	}
	if len(parts) == 0 {
		return "", errors.New("views sql: no tables")
	}
	return strings.Join(parts, "\n"), nil
}

// quoteIdent quotes a SQL identifier for DuckDB.
func quoteIdent(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// quoteLiteral quotes a SQL string literal for DuckDB.
func quoteLiteral(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

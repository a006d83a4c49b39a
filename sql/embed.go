// Package sql holds svc's DuckDB SQL as files embedded into the binary: the
// pipeline's aggregate queries and the analyst views over published Parquet.
// SQL longer than one line lives here, never in Go strings, so it can be read,
// diffed and run in the duckdb shell on its own.
//
// Importers that also use database/sql name it svcsql.
package sql

import (
	"embed"
	"fmt"
	"io/fs"
)

//go:embed *.sql
var files embed.FS

// FS returns every embedded SQL file, by base name.
func FS() fs.FS { return files }

// Text returns the SQL file name (for example "view.sql"). Names are
// constants in the calling code, so a missing file is a programming error
// and panics, in the first test that reaches it.
func Text(name string) string {
	b, err := files.ReadFile(name)
	if err != nil {
		panic(fmt.Sprintf("sql: %v", err))
	}
	return string(b)
}

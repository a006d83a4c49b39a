-- view.sql: the analyst view of one published table. A text/template filled
-- by datasets.Table.ViewSQL (ident quotes an identifier, literal a string).
-- The view reads the table's Parquet file(s) in place; the comments carry the
-- table definition's descriptions, so duckdb_columns() documents the data.
-- A column the files lack (a snapshot published before it was added; a
-- published snapshot never changes) reads as a typed NULL: unmeasured there.
CREATE OR REPLACE VIEW {{ident .Name}} AS
SELECT
{{- range $i, $c := .Columns}}{{if $i}},{{end}}
    {{if index $.Absent $c.Name}}CAST(NULL AS {{index $.Absent $c.Name}}) AS {{end}}{{ident $c.Name}}
{{- end}}
FROM read_parquet([{{range $i, $f := .Files}}{{if $i}}, {{end}}{{literal $f}}{{end}}]);
COMMENT ON VIEW {{ident .Name}} IS {{literal .Description}};
{{- range .Columns}}
COMMENT ON COLUMN {{ident $.Name}}.{{ident .Name}} IS {{literal .Description}};
{{- end}}

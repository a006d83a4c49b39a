package publish

import (
	"svc/datasets"
)

// dataPackage is datapackage.json, a Frictionless Data Package
// (https://specs.frictionlessdata.io/data-package/) describing the version
// folder: one CSV and one Parquet resource per table, with column docs.
type dataPackage struct {
	Profile     string            `json:"profile"`
	Name        string            `json:"name"`
	Title       string            `json:"title"`
	Description string            `json:"description"`
	Version     string            `json:"version"`
	Homepage    string            `json:"homepage,omitempty"`
	Licenses    []packageLicense  `json:"licenses"`
	Resources   []packageResource `json:"resources"`
}

type packageLicense struct {
	Name  string `json:"name"`
	Path  string `json:"path"`
	Title string `json:"title"`
}

type packageResource struct {
	Name        string                      `json:"name"`
	Path        string                      `json:"path"`
	Profile     string                      `json:"profile,omitempty"`
	Title       string                      `json:"title"`
	Description string                      `json:"description"`
	Format      string                      `json:"format"`
	Mediatype   string                      `json:"mediatype"`
	Encoding    string                      `json:"encoding,omitempty"`
	Bytes       int64                       `json:"bytes"`
	Hash        string                      `json:"hash"`
	Dialect     *csvDialect                 `json:"dialect,omitempty"`
	Schema      datasets.FrictionlessSchema `json:"schema"`
}

type csvDialect struct {
	Delimiter      string `json:"delimiter"`
	LineTerminator string `json:"lineTerminator"`
	QuoteChar      string `json:"quoteChar"`
	DoubleQuote    bool   `json:"doubleQuote"`
	Header         bool   `json:"header"`
}

// packageName is the Data Package name (lower case, -, _ and . only).
const packageName = "svc-agent-checkout"

func buildDataPackage(m *Manifest, tables []*datasets.Table) dataPackage {
	p := dataPackage{
		Profile:     "data-package",
		Name:        packageName,
		Title:       m.Title,
		Description: datasetDescription,
		Version:     m.Version,
		Licenses:    []packageLicense{{Name: m.License.ID, Path: m.License.URL, Title: "Creative Commons Attribution 4.0 International"}},
	}
	for i, e := range m.Tables {
		t := tables[i]
		schema := t.FrictionlessSchema()
		p.Resources = append(p.Resources,
			packageResource{
				Name: e.Name, Path: e.CSV.Path, Profile: "tabular-data-resource",
				Title: e.Title, Description: e.Description,
				Format: "csv", Mediatype: "text/csv", Encoding: "utf-8",
				Bytes: e.CSV.Bytes, Hash: "sha256:" + e.CSV.SHA256,
				Dialect: &csvDialect{Delimiter: ",", LineTerminator: "\r\n", QuoteChar: `"`, DoubleQuote: true, Header: true},
				Schema:  schema,
			},
			packageResource{
				Name: e.Name + "-parquet", Path: e.Parquet.Path,
				Title: e.Title + " (Parquet)", Description: e.Description,
				Format: "parquet", Mediatype: "application/vnd.apache.parquet",
				Bytes: e.Parquet.Bytes, Hash: "sha256:" + e.Parquet.SHA256,
				Schema: schema,
			})
	}
	return p
}

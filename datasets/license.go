package datasets

// The terms of every published file. Parquet files carry them as key-value
// metadata; the publisher puts them in manifest.json, datapackage.json and
// an ATTRIBUTION.txt beside the files.
const (
	// License is the SPDX id of the licence.
	License = "CC-BY-4.0"
	// LicenseURL is the licence's canonical text.
	LicenseURL = "https://creativecommons.org/licenses/by/4.0/"
	// Attribution is the line to credit when reusing the data.
	Attribution = "svc agent-commerce readiness data, licensed CC-BY-4.0; attribution: svc."
)

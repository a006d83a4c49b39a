package publish

import "time"

// The protocol matrix, api/protocols.json (spec 2.9): the aggregate stage
// builds it, the server serves it.

// ProtocolStage is one cell of the protocol matrix. Percentage, Count and N are
// null when the stage is not measured.
type ProtocolStage struct {
	Percentage *float64 `json:"percentage"`
	Count      *int64   `json:"count"`
	N          *int64   `json:"n"`
	Evidence   string   `json:"evidence"`
	Basis      string   `json:"basis"`
}

// ProtocolStages are a protocol's four stages, in order.
type ProtocolStages struct {
	Declare  ProtocolStage `json:"declare"`
	Validate ProtocolStage `json:"validate"`
	Answer   ProtocolStage `json:"answer"`
	Transact ProtocolStage `json:"transact"`
}

// ProtocolRow is one protocol of the matrix.
type ProtocolRow struct {
	ID     string         `json:"id"`
	Name   string         `json:"name"`
	Stages ProtocolStages `json:"stages"`
}

// ProtocolInfo names a protocol id.
type ProtocolInfo struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// ProtocolMatrix is api/protocols.json (spec 2.9).
type ProtocolMatrix struct {
	Rows               []ProtocolRow  `json:"rows"`
	StoresChecked      int64          `json:"storesChecked"`
	IndexStoresChecked int64          `json:"indexStoresChecked"`
	AsOf               time.Time      `json:"asOf"`
	Methodology        string         `json:"methodology"`
	License            string         `json:"license"`
	Cite               string         `json:"cite"`
	Available          bool           `json:"available"`
	Protocols          []ProtocolInfo `json:"protocols"`
	Stages             []string       `json:"stages"`
	GeneratedAt        time.Time      `json:"generatedAt"`
}

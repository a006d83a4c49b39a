package pipeline

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"

	"svc/datasets"
	"svc/pipeline/check"
	"svc/pipeline/durable"
	"svc/pipeline/ucp"
)

// ChecksFile is the crawl's output table inside the run folder.
const ChecksFile = "checks.parquet"

// WriteChecks turns the crawl journal in dir into dir/checks.parquet (one
// row per host, every signal) and returns the row count; dir is the run
// folder, or a shard's partition folder ChecksDir(runDir, shard). It writes
// atomically, so a re-run after a crash replaces the file whole.
func WriteChecks(dir string) (int, error) {
	cols, err := datasets.NewColumns(datasets.Checks, 0)
	if err != nil {
		return 0, err
	}
	var rowErr error
	err = ReadJournal(filepath.Join(dir, JournalName), func(r CrawlRecord) {
		if rowErr == nil {
			rowErr = cols.AppendRow(CheckRow(r))
		}
	})
	if err != nil {
		return 0, fmt.Errorf("write checks %s: %w", dir, err)
	}
	if rowErr != nil {
		return 0, fmt.Errorf("write checks %s: %w", dir, rowErr)
	}
	if err := writeParquetFile(filepath.Join(dir, ChecksFile), cols); err != nil {
		return 0, fmt.Errorf("write checks %s: %w", dir, err)
	}
	return cols.Len(), nil
}

// writeParquetFile writes cols as one Parquet file at path, atomically, so
// a re-run after a crash replaces the file whole.
func writeParquetFile(path string, cols *datasets.Columns) error {
	var buf bytes.Buffer
	if err := datasets.WriteParquet(&buf, cols); err != nil {
		return err
	}
	return durable.WriteFileAtomic(path, buf.Bytes(), 0o644)
}

// CheckRow maps one journal record to a row of datasets.Checks. A store
// whose check failed keeps its directory fields and its error class; every
// measurement is null.
func CheckRow(rec CrawlRecord) datasets.Row {
	s, r := rec.Store, rec.Result
	row := datasets.Row{s.Host, nullStr(s.Name), nullStr(s.Category), s.Source, nullStr(rec.Error)}
	if r == nil {
		for len(row) < len(datasets.Checks.Columns) {
			row = append(row, nil)
		}
		return row
	}
	full, _ := json.Marshal(r)
	// The rules ran on every profile that was read, validated or not.
	ruled := r.UCPProfile.Valid != nil || r.UCPProfile.Status == ucp.VerdictUnvalidated
	row = append(row,
		r.CheckedAt, r.MethodVersion,
		r.Reachability.Reachable, nullInt(r.Reachability.HTTPStatus), nullStr(r.Reachability.Error),
		r.BlockStatus.Blocked, nullStr(r.BlockStatus.Reason), r.BlockStatus.EdgeBlockBehindAllowAll,
		r.Reachability.Parked, r.Reachability.RedirectsToOtherBrand,
		r.Platform,
		r.CatalogAnswered, nullStr(r.Catalog.Source), intPtr(r.Catalog.Products), r.Catalog.Throttled,
		r.ProductFound, r.CartLink,
		r.StorefrontMCP.Detected, jsonList(r.StorefrontMCP.Tools, r.StorefrontMCP.Detected != nil),
		r.WebMCP, jsonList(r.WebMCPDetail.Tools, r.WebMCP != nil),
		r.CheckoutWebMCP.Status, r.CheckoutWebMCP.Detected,
		r.UCPProfile.Status, r.UCPProfile.DeclaredVersion, r.UCPProfile.Valid, r.UCPProfile.DirectoryCount,
		jsonList(r.UCPProfile.ErrorRules, ruled), jsonList(r.UCPProfile.WarningRules, ruled),
		r.UCPProfile.ShoppingService, r.UCPProfile.Checkout,
		r.Robots.Status,
	)
	for _, a := range datasets.RobotsAgents {
		if v, ok := r.Robots.Agents[a]; ok {
			row = append(row, v.Verdict)
		} else {
			row = append(row, nil)
		}
	}
	var pd check.ProductData
	if r.ProductData != nil {
		pd = *r.ProductData
	}
	var complete *bool
	if r.ProductData != nil {
		complete = &pd.Complete
	}
	row = append(row,
		pd.Source, pd.Name, pd.Price, pd.Currency, pd.Availability, pd.GTIN, pd.SKU, pd.Image, complete,
		r.Policies.Returns, r.Policies.Shipping, r.Policies.Privacy, r.Policies.Terms,
		r.ACP.Found, nullStr(r.ACP.Version), r.MCPServerCard.Found, nullStr(r.MCPServerCard.Path),
		r.Fix.Code, string(full),
	)
	mk, pt := r.Market, r.PageText
	var decl any
	if mk.Declarations != nil {
		b, _ := json.Marshal(mk.Declarations)
		decl = string(b)
	}
	var words any
	if pt.Words != nil {
		words = int64(*pt.Words)
	}
	row = append(row,
		mk.Country, mk.Basis, mk.Currency, decl,
		pt.Description, pt.Source, nullStr(pt.URL), words,
		pt.UseCaseMention, jsonList(pt.UseCases, pt.UseCaseMention != nil),
		pt.AgentFriendly, jsonList(pt.Issues, pt.AgentFriendly != nil),
	)
	return row
}

func intPtr(n *int) any {
	if n == nil {
		return nil
	}
	return int64(*n)
}

func nullStr(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func nullInt(n int) any {
	if n == 0 {
		return nil
	}
	return int64(n)
}

// jsonList is a JSON array, or null when the list was not measured.
func jsonList(l []string, measured bool) any {
	if !measured {
		return nil
	}
	if l == nil {
		l = []string{}
	}
	b, _ := json.Marshal(l)
	return string(b)
}

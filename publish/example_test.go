package publish_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"svc/datasets"
	"svc/publish"
)

// The snapshot stage: build every table in memory, then publish them with
// the precomputed JSON in one call.
func Example() {
	dir, err := os.MkdirTemp("", "svc-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()

	answers, err := datasets.NewColumns(datasets.StoreAnswers, 2)
	if err != nil {
		panic(err)
	}
	checked := time.Date(2026, 5, 3, 9, 30, 0, 0, time.UTC)
	row := make(datasets.Row, len(datasets.StoreAnswers.Columns)) // reused: AppendRow copies
	for _, host := range []string{"b.test", "a.test"} {
		clear(row) // all null: unmeasured
		row[0], row[4], row[14] = host, "seed", checked
		row[8] = int64(42) // score
		if err := answers.AppendRow(row); err != nil {
			panic(err)
		}
	}
	stores, err := datasets.FromRows(datasets.Stores, []datasets.Row{
		{"a.test", "A", "apparel", "seed", "US", nil, nil},
		{"b.test", "B", "beauty", "submitted", nil, nil, nil},
	})
	if err != nil {
		panic(err)
	}

	st, err := publish.NewDirStore(filepath.Join(dir, "public")) // DIR/public
	if err != nil {
		panic(err)
	}
	res, err := publish.Publish(ctx, st, &publish.Snapshot{
		Version:       "2026-05-04",
		MethodVersion: "2026.05",
		Tables:        []*datasets.Columns{stores, answers},
		Files: []publish.File{
			{Path: "api/protocols.json", Data: []byte(`{"license":"CC-BY-4.0"}`)},
		},
		Weekly: &publish.Edition{Date: "2026-05-04", Body: []byte(`{"schema":"svc-weekly-agent-checkout/1"}`)},
	})
	if err != nil {
		panic(err)
	}
	m := res.Manifest
	fmt.Println(m.Version, m.FirstFile, m.Tables[0].Rows, m.Tables[0].Parquet.LatestURL)
	fmt.Println(res.Created, res.LatestMoved, res.Wrote)
	// Output:
	// 2026-05-04 store_answers 2 /data/latest/store_answers.parquet
	// true true [api/ATTRIBUTION.txt api/protocols.json api/weekly/ATTRIBUTION.txt api/weekly/agent-checkout.json api/weekly/agent-checkout/2026-05-04.json api/weekly/agent-checkout/ATTRIBUTION.txt]
}

package pages

import (
	"context"
	"encoding/xml"
	"slices"
	"strings"
	"testing"

	"svc/datasets"
	"svc/publish"
)

// TestWeeklyChart: the standalone SVG parses, carries the edition's
// headline as its title, its alt_text as its description and the CC-BY
// line, and is published frozen beside the JSON.
func TestWeeklyChart(t *testing.T) {
	in := testInput(t)
	files, err := Build(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	var chart *publish.File
	for i := range files {
		if files[i].Path == WeeklySVGFile("2026-11-16") {
			chart = &files[i]
		}
	}
	if chart == nil || !chart.Frozen {
		t.Fatalf("no frozen chart beside the edition: %+v", chart)
	}
	var doc struct {
		Title string   `xml:"title"`
		Desc  string   `xml:"desc"`
		Texts []string `xml:"text"`
	}
	if err := xml.Unmarshal(chart.Data, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Title != "33.3% of 3 checked stores returned a checkout link." || doc.Desc != "Bar chart: hosted platform 100% of 1; not detected 0% of 2." {
		t.Errorf("title %q, desc %q", doc.Title, doc.Desc)
	}
	if !slices.Contains(doc.Texts, datasets.Attribution) || !slices.Contains(doc.Texts, "33.3%") {
		t.Errorf("the chart's texts: %q", doc.Texts)
	}
	page := string(build(t, in)["weekly/2026-11-16/index.html"])
	if !strings.Contains(page, `alt="Bar chart: hosted platform 100% of 1; not detected 0% of 2."`) {
		t.Error("the edition page does not use the alt_text")
	}
}

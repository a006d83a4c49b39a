package publish

// The weekly figure's document (schema svc-weekly-agent-checkout/1, spec
// 2.13): the aggregate stage writes it, Publish freezes it as an Edition
// and the pages render it.

// WeeklyEdition is one weekly figure (spec 2.13), frozen once published.
type WeeklyEdition struct {
	Schema         string           `json:"schema"`
	Date           string           `json:"date"` // post date
	Headline       string           `json:"headline"`
	Segments       []WeeklySegment  `json:"segments"`
	Comparison     WeeklyComparison `json:"comparison"`
	AltText        string           `json:"alt_text"`
	Citation       string           `json:"citation"`
	N              int64            `json:"n"`
	Count          int64            `json:"count"`
	Pct            *float64         `json:"pct"`
	SnapshotDate   string           `json:"snapshot_date"`
	DatasetVersion string           `json:"dataset_version"`
	License        string           `json:"license"`
	CCBY           string           `json:"cc_by"`
	Metric         string           `json:"metric"`
	Scope          string           `json:"scope"`
	Source         string           `json:"source"`
	// Market is the country the figure covers ("US"); empty in editions
	// from before the figure was limited to one market.
	Market string `json:"market,omitempty"`
	// MarketStores counts the stores of that market; NotMeasured those of
	// them whose UCP checkout link was not measured (left out of N).
	MarketStores int64 `json:"market_stores"`
	NotMeasured  int64 `json:"not_measured"`
	// Note says what the figure cannot yet show, when there is such a
	// limit.
	Note string `json:"note,omitempty"`
}

// WeeklySegment is one bar of the weekly figure.
type WeeklySegment struct {
	ID    string   `json:"id"`
	Label string   `json:"label"`
	N     int64    `json:"n"`
	Count int64    `json:"count"`
	Pct   *float64 `json:"pct"`
}

// WeeklyComparison sets the segments side by side and this week against
// the previous edition.
type WeeklyComparison struct {
	Text string `json:"text"`
	// DifferencePctPoints is the hosted-platform pct minus the
	// not-detected pct; null when either is null.
	DifferencePctPoints *float64        `json:"difference_pct_points"`
	Previous            *WeeklyPrevious `json:"previous"` // null without a previous edition
}

// WeeklyPrevious is the previous run's edition, for the week-over-week
// comparison.
type WeeklyPrevious struct {
	Date            string   `json:"date"`
	N               int64    `json:"n"`
	Count           int64    `json:"count"`
	Pct             *float64 `json:"pct"`
	ChangePctPoints *float64 `json:"change_pct_points"`
}

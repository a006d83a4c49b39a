package pages

import (
	"context"
	"encoding/json"
	"fmt"

	"svc/publish"
)

type homeData struct {
	Figures  *publish.Adoption // api/agent-checkout/adoption.json (spec 2.8), when available
	Weekly   *publish.WeeklyEdition
	Stores   int
	Board    bool
	Version  string
	Versions int
}

func (b *builder) home(ctx context.Context) error {
	d := &homeData{Stores: len(b.listed), Version: b.in.Version}
	if body := b.file(publish.AdoptionPath); body != nil {
		var f publish.Adoption
		if err := json.Unmarshal(body, &f); err != nil {
			return fmt.Errorf("%s: %w", publish.AdoptionPath, err)
		}
		if f.Available {
			d.Figures = &f
		}
	}
	eds, _, err := b.editions(ctx)
	if err != nil {
		return err
	}
	if len(eds) > 0 {
		d.Weekly = eds[0]
	}
	board, err := b.leaderboardBoard()
	if err != nil {
		return err
	}
	d.Board = board != nil
	body, err := b.render("home", &Page{Title: "Can AI agents buy here?", Section: "home",
		Description: "svc measures whether AI agents can find products and reach checkout at online stores, and publishes the results as open data. It stops before payment.",
		Data:        d})
	if err != nil {
		return err
	}
	b.add(HomeFile, body, false)
	return nil
}

package pipeline

import (
	"context"
	"fmt"
	"os"
	"time"

	"svc/pipeline/shop"
	"svc/pipeline/shop/browser"
)

// The shop stage's browser: Chromium started once for the stage, and the
// ShopRunner that runs each (store, shopper) pair in it. `svc shop` (the
// stage form) and `svc run` start it the same way.

// ShopBrowserOptions configure StartShopRunner.
type ShopBrowserOptions struct {
	// FixtureAddr and FixtureCA (PEM) send *.test hosts to the fixture
	// world (--fixture-addr, --fixture-ca); empty for the public web.
	FixtureAddr string
	FixtureCA   []byte
	// LLM configures shopper D; RunTimeout bounds each run.
	LLM        shop.LLMConfig
	RunTimeout time.Duration
}

// StartShopRunner starts Chromium for the shop stage and returns the
// runner of its runs and the function that stops it; browser.ErrNoBrowser
// when no Chromium is found.
func StartShopRunner(ctx context.Context, o ShopBrowserOptions) (ShopRunner, func(), error) {
	// A configured SVC_CHROMIUM that is not there is no Chromium either.
	exe := browser.FindExecPath()
	if fi, err := os.Stat(exe); exe == "" || err != nil || fi.IsDir() {
		return nil, nil, fmt.Errorf("%w: %q", browser.ErrNoBrowser, exe)
	}
	b, err := browser.Start(ctx, browser.Options{ExecPath: exe, FixtureAddr: o.FixtureAddr, FixtureCA: o.FixtureCA})
	if err != nil {
		return nil, nil, err
	}
	so := shop.Options{Browser: b, LLM: o.LLM, RunTimeout: o.RunTimeout}
	run := func(ctx context.Context, sh shop.Shopper, rawURL string) (*shop.Report, error) {
		return shop.Run(ctx, so, sh, rawURL)
	}
	return run, func() { b.Close() }, nil
}

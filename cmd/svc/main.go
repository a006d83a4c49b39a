// Command svc measures whether AI agents can find products and reach checkout
// at online stores, publishes the results as open datasets, and serves them.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"svc/cmd/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

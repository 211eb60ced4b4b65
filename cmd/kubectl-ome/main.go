package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/ome-routing/operator/cmd/kubectl-ome/app"
)

func main() {
	// Ctrl-C cancels the context, so a pending prompt or request ends with
	// "context canceled" instead of a bare signal death.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := app.NewCommand(genericiooptions.IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr}).ExecuteContext(ctx)
	stop()
	os.Exit(app.Exit(err, os.Stderr))
}

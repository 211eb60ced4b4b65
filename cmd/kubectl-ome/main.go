package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/ome-routing/operator/cmd/kubectl-ome/app"
	"github.com/ome-routing/operator/cmd/kubectl-ome/app/util"
)

func main() {
	// Ctrl-C cancels the context, so a pending prompt or request ends with
	// "context canceled" instead of a bare signal death.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	cmd := app.NewCommand(genericiooptions.IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr})
	cmd.SetArgs(util.JoinDryRunValue(os.Args[1:]))
	err := cmd.ExecuteContext(ctx)
	stop()
	os.Exit(app.Exit(err, os.Stderr))
}

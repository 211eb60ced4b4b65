package app

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/ome-routing/operator/cmd/kubectl-ome/app/placement"
	"github.com/ome-routing/operator/cmd/kubectl-ome/app/traffic"
	"github.com/ome-routing/operator/cmd/kubectl-ome/app/util"
)

// NewCommand is `kubectl ome` with the kubeconfig flags (--kubeconfig, --context, -n, ...)
// shared by every subcommand.
func NewCommand(streams genericiooptions.IOStreams) *cobra.Command {
	flags := genericclioptions.NewConfigFlags(true)
	cmd := &cobra.Command{
		Use:   "kubectl-ome",
		Short: "Drain workload clusters and read a service's routing",
		// Errors are printed once, by Exit, as "error: <message>"; usage only on --help.
		SilenceErrors: true,
		SilenceUsage:  true,
		CompletionOptions: cobra.CompletionOptions{
			DisableDefaultCmd: true,
		},
	}
	cmd.SetIn(streams.In)
	cmd.SetOut(streams.Out)
	cmd.SetErr(streams.ErrOut)
	flags.AddFlags(cmd.PersistentFlags())
	getter := util.NewClientGetter(flags)
	cmd.AddCommand(traffic.NewCommand(getter, streams))
	cmd.AddCommand(placement.NewCommand(getter, streams))
	return cmd
}

// Exit prints a command's error as "error: <message>" and returns the process's exit
// code: 0 on success, 3 when a guarded patch lost a race, 1 for everything else.
func Exit(err error, stderr io.Writer) int {
	if err == nil {
		return 0
	}
	fmt.Fprintf(stderr, "error: %s\n", err)
	var exit *util.ExitError
	if errors.As(err, &exit) {
		return exit.Code
	}
	return 1
}

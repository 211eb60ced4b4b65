package app

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/ome-routing/operator/cmd/kubectl-ome/app/cluster"
	"github.com/ome-routing/operator/cmd/kubectl-ome/app/get"
	"github.com/ome-routing/operator/cmd/kubectl-ome/app/placement"
	"github.com/ome-routing/operator/cmd/kubectl-ome/app/traffic"
	"github.com/ome-routing/operator/cmd/kubectl-ome/app/util"
	"github.com/ome-routing/operator/pkg/version"
)

// NewCommand is `kubectl ome` with the kubeconfig flags (--kubeconfig, --context, -n, ...)
// shared by every subcommand.
func NewCommand(streams genericiooptions.IOStreams) *cobra.Command {
	flags := genericclioptions.NewConfigFlags(true)
	cmd := &cobra.Command{
		Use:   "kubectl-ome",
		Short: "Drain workload clusters and read a service's routing",
		// kubectl runs the plugin as `kubectl ome`: usage lines and help say so.
		Annotations: map[string]string{cobra.CommandDisplayNameAnnotation: "kubectl ome"},
		Example: `  # Why does a cluster of the service chat get the weight it has?
  kubectl ome placement endpoint chat -n prod

  # The TrafficMaps of namespace prod: mode, targets, routable, published
  kubectl ome get trafficmaps -n prod

  # Hold worker-a at weight 0 for maintenance, then release it
  kubectl ome traffic drain chat -n prod --workload-cluster worker-a --id maintenance-a --reason "planned maintenance"
  kubectl ome traffic undrain chat -n prod --id maintenance-a

  # The registered workload clusters: source, Ready, and whether that is current
  kubectl ome cluster status

  # The plugin's version
  kubectl ome version`,
		Version: version.Get().String(),
		// Errors are printed once, by Exit, as "error: <message>"; usage only on --help.
		SilenceErrors: true,
		SilenceUsage:  true,
		// Completion goes through kubectl: `kubectl completion bash` completes `kubectl ome`
		// by running kubectl_complete-ome, which asks this binary (__complete stays).
		CompletionOptions: cobra.CompletionOptions{
			DisableDefaultCmd: true,
		},
	}
	cmd.SetVersionTemplate("kubectl-ome {{.Version}}\n")
	// --version without cobra's -v shorthand, which kubectl users know as the log level.
	cmd.Flags().Bool("version", false, "Print the plugin's version, revision and Go version")
	util.Group(cmd)
	cmd.SetIn(streams.In)
	cmd.SetOut(streams.Out)
	cmd.SetErr(streams.ErrOut)
	flags.AddFlags(cmd.PersistentFlags())
	// The plugin never talks to an API server it cannot verify, so the flag kubectl offers
	// to skip that is not offered here; given anyway, it is refused with that reason
	// (ClientGetter.Resolve) rather than being an unknown flag.
	if err := cmd.PersistentFlags().MarkHidden("insecure-skip-tls-verify"); err != nil {
		panic(err)
	}
	getter := util.NewClientGetter(flags)
	completeKubeconfigFlags(cmd, getter)
	cmd.AddCommand(traffic.NewCommand(getter, streams))
	cmd.AddCommand(placement.NewCommand(getter, streams))
	cmd.AddCommand(get.NewCommand(getter, streams))
	cmd.AddCommand(cluster.NewCommand(getter, streams))
	cmd.AddCommand(newVersionCommand(streams))
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

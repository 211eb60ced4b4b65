package cluster

import (
	"context"
	"errors"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/ome-routing/operator/cmd/kubectl-ome/app/util"
)

var (
	errFlags = errors.New("invalid cluster flags; use --help")
	errArgs  = errors.New("cluster status takes no arguments")
)

// NewCommand is `kubectl ome cluster`.
func NewCommand(getter *util.ClientGetter, streams genericiooptions.IOStreams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "cluster",
		Short: "Read the registered workload clusters (read-only, alpha)",
		Example: `  # Each WorkloadCluster: what it connects through, Ready, and whether that is current
  kubectl ome cluster status`,
	}
	util.Group(cmd)
	cmd.SetFlagErrorFunc(util.FlagErrors(errFlags.Error()))
	cmd.AddCommand(newStatusCommand(getter, streams))
	return cmd
}

func newStatusCommand(getter *util.ClientGetter, streams genericiooptions.IOStreams) *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show each WorkloadCluster's source, readiness and freshness, after the read's own state",
		Long: `Show each WorkloadCluster's source, readiness and freshness, after the read's own state.

The first rows say what the read itself amounts to: Observation is Complete (every cluster
read), Empty (none registered), Partial (some read, then a refused request or the budget of
64 clusters) or Unavailable (nothing read, for example Forbidden). The command exits 0 in
every one of these: a script reads the Observation row, not the exit code.

Per cluster, SOURCE is what it connects through (KubeConfigSecret, ClusterProfile), or
Invalid when the spec names neither or both or the manager reports the one it names
unusable (a missing Secret, a refused kubeconfig, a missing ClusterProfile). READY is the
Ready condition's status while FRESHNESS is Current, that is written for the cluster's
generation; Stale means the manager has not judged the spec as it is now, Unobserved that
it has not judged the cluster at all, Invalid that the status is malformed. A stopped
manager whose clusters do not change still reads Current: the manager rewrites the
condition only when it changes. The plugin reads WorkloadClusters only: no Secret, no
ClusterProfile, no member.`,
		Example: `  # The registered workload clusters
  kubectl ome cluster status

  # With each one's Secret or ClusterProfile, reason, message and generations
  kubectl ome cluster status -o wide

  # Everything, uncut, for a script
  kubectl ome cluster status -o json`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case len(args) != 0:
				return util.Explain(errArgs, "got %d; the command reads every WorkloadCluster", len(args))
			case util.CheckOutput(output) != nil:
				return util.ErrOutput
			}
			target, err := getter.Resolve()
			if err != nil {
				return err
			}
			report := buildReport(readClusters(cmd.Context(), target.Client), time.Now())
			if output == util.OutputJSON || output == util.OutputYAML {
				return util.PrintObject(output, report, streams.Out)
			}
			return printTable(streams.Out, report, output == util.OutputWide)
		},
	}
	cmd.SetFlagErrorFunc(util.FlagErrors(errFlags.Error()))
	cmd.Flags().StringVarP(&output, "output", "o", util.OutputTable, "Output: table, wide, json or yaml")
	util.CompleteFlagValues(cmd, "output", util.OutputTable, util.OutputWide, util.OutputJSON, util.OutputYAML)
	cmd.ValidArgsFunction = cobra.NoFileCompletions
	return cmd
}

// contextOf is the command's context, or a background one when cobra has none (a test
// calling RunE directly).
func contextOf(ctx context.Context) context.Context {
	if ctx == nil {
		return context.Background()
	}
	return ctx
}

package traffic

import (
	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/ome-routing/operator/cmd/kubectl-ome/app/util"
)

// NewCommand is `kubectl ome traffic`.
func NewCommand(getter *util.ClientGetter, streams genericiooptions.IOStreams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "traffic",
		Short: "Hold a workload cluster at weight 0 for maintenance, or release it (alpha)",
		Example: `  # Hold worker-a of the service chat at weight 0, after a preview and a prompt
  kubectl ome traffic drain chat -n prod --workload-cluster worker-a --id maintenance-a --reason "planned maintenance"

  # Release it
  kubectl ome traffic undrain chat -n prod --id maintenance-a`,
	}
	util.Group(cmd)
	// Every flag problem, unknown flag, missing value or bad boolean, keeps the documented
	// message and names the flag.
	cmd.SetFlagErrorFunc(util.FlagErrors(errFlags.Error()))
	cmd.AddCommand(newDrainCommand(getter, streams), newUndrainCommand(getter, streams), newStatusCommand(getter, streams))
	return cmd
}

// addCommonFlags are the flags drain and undrain share.
func addCommonFlags(cmd *cobra.Command, o *options) {
	util.AddDryRunFlag(cmd.Flags(), &o.dryRun)
	cmd.Flags().StringVar(&o.id, "id", "", "DNS-1123 override ID (required)")
	cmd.Flags().StringVarP(&o.output, "output", "o", util.OutputTable, "Output: table, wide (bounded), json or yaml")
	cmd.Flags().BoolVar(&o.yes, "yes", false, "Confirm the exact preview without an interactive prompt")
	util.CompleteFlagValues(cmd, "output", util.OutputTable, util.OutputWide, util.OutputJSON, util.OutputYAML)
	util.CompleteFlagValues(cmd, "dry-run", util.DryRunNone, util.DryRunClient, util.DryRunServer)
}

func newDrainCommand(getter *util.ClientGetter, streams genericiooptions.IOStreams) *cobra.Command {
	o := &options{action: actionDrain, getter: getter, streams: streams}
	cmd := &cobra.Command{
		Use:   "drain INFERENCESERVICE --workload-cluster CLUSTER --id ID --reason REASON",
		Short: "Hold one workload cluster of a service at weight 0 until the override is removed",
		Long: `Hold one workload cluster of a service at weight 0 until the override is removed.

The drain is a guarded patch of the service's ome.io/traffic-drain annotation: a preview on
stderr, a prompt (or --yes), then a JSON patch that applies only to the exact object
previewed. The cluster must be an entry of the service's TrafficMap or a registered
WorkloadCluster; --force drains a name that is neither, with a warning.`,
		Example: `  # Preview, confirm at the prompt, and drain
  kubectl ome traffic drain chat -n prod --workload-cluster worker-a --id maintenance-a --reason "planned maintenance"

  # Unattended, as a script would
  kubectl ome traffic drain chat -n prod --workload-cluster worker-a --id maintenance-a --reason "planned maintenance" --yes

  # Check everything and send nothing (a bare --dry-run means client)
  kubectl ome traffic drain chat -n prod --workload-cluster worker-a --id maintenance-a --reason "planned maintenance" --dry-run

  # Let the API server check the patch without storing it
  kubectl ome traffic drain chat -n prod --workload-cluster worker-a --id maintenance-a --reason "planned maintenance" --dry-run=server --yes`,
		Args:              cobra.ArbitraryArgs,
		ValidArgsFunction: util.CompleteServices(getter),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.args = args
			return o.run(cmd.Context())
		},
	}
	addCommonFlags(cmd, o)
	cmd.Flags().StringVar(&o.cluster, "workload-cluster", "", "WorkloadCluster DNS name to drain (required)")
	cmd.Flags().StringVar(&o.reason, "reason", "", "Bounded non-secret operator reason (required)")
	cmd.Flags().BoolVar(&o.force, "force", false, "Drain a cluster that is neither in the service's TrafficMap nor a WorkloadCluster")
	util.CompleteFlag(cmd, "workload-cluster", util.CompleteClusters(getter))
	return cmd
}

func newUndrainCommand(getter *util.ClientGetter, streams genericiooptions.IOStreams) *cobra.Command {
	o := &options{action: actionUndrain, getter: getter, streams: streams}
	cmd := &cobra.Command{
		Use:   "undrain INFERENCESERVICE --id ID",
		Short: "Remove one drain override from a service",
		Example: `  # Remove the override maintenance-a, after a preview and a prompt
  kubectl ome traffic undrain chat -n prod --id maintenance-a

  # Unattended
  kubectl ome traffic undrain chat -n prod --id maintenance-a --yes`,
		Args:              cobra.ArbitraryArgs,
		ValidArgsFunction: util.CompleteServices(getter),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.args = args
			return o.run(cmd.Context())
		},
	}
	addCommonFlags(cmd, o)
	util.CompleteFlag(cmd, "id", util.CompleteDrainIDs(getter))
	return cmd
}

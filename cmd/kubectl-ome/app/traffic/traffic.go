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
	}
	// Every flag problem, unknown flag, missing value or bad boolean, gets one message.
	cmd.SetFlagErrorFunc(func(*cobra.Command, error) error { return errFlags })
	cmd.AddCommand(newDrainCommand(getter, streams), newUndrainCommand(getter, streams))
	return cmd
}

// addCommonFlags are the flags drain and undrain share.
func addCommonFlags(cmd *cobra.Command, o *options) {
	cmd.Flags().StringVar(&o.dryRun, "dry-run", util.DryRunNone, "Dry-run mode: none, client or server")
	cmd.Flags().StringVar(&o.id, "id", "", "DNS-1123 override ID (required)")
	cmd.Flags().StringVarP(&o.output, "output", "o", util.OutputTable, "Output: table, wide (bounded), json or yaml")
	cmd.Flags().BoolVar(&o.yes, "yes", false, "Confirm the exact preview without an interactive prompt")
}

func newDrainCommand(getter *util.ClientGetter, streams genericiooptions.IOStreams) *cobra.Command {
	o := &options{action: actionDrain, getter: getter, streams: streams}
	cmd := &cobra.Command{
		Use:   "drain INFERENCESERVICE --workload-cluster CLUSTER --id ID --reason REASON",
		Short: "Hold one workload cluster of a service at weight 0 until the override is removed",
		Args:  cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.args = args
			return o.run(cmd.Context())
		},
	}
	addCommonFlags(cmd, o)
	cmd.Flags().StringVar(&o.cluster, "workload-cluster", "", "WorkloadCluster DNS name to drain (required)")
	cmd.Flags().StringVar(&o.reason, "reason", "", "Bounded non-secret operator reason (required)")
	return cmd
}

func newUndrainCommand(getter *util.ClientGetter, streams genericiooptions.IOStreams) *cobra.Command {
	o := &options{action: actionUndrain, getter: getter, streams: streams}
	cmd := &cobra.Command{
		Use:   "undrain INFERENCESERVICE --id ID",
		Short: "Remove one drain override from a service",
		Args:  cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.args = args
			return o.run(cmd.Context())
		},
	}
	addCommonFlags(cmd, o)
	return cmd
}

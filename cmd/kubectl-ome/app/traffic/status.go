package traffic

import (
	"time"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/ome-routing/operator/cmd/kubectl-ome/app/placement"
	"github.com/ome-routing/operator/cmd/kubectl-ome/app/util"
)

// newStatusCommand is `kubectl ome traffic status`, the follow-up the drain preview prints.
func newStatusCommand(getter *util.ClientGetter, streams genericiooptions.IOStreams) *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "status INFERENCESERVICE",
		Short: "Show each route home's weight and drains, marked Reported or Computed (read-only)",
		Example: `  # After a drain: is worker-a at weight 0, and which override holds it?
  kubectl ome traffic status chat -n prod`,
		Args:              cobra.ArbitraryArgs,
		ValidArgsFunction: util.CompleteServices(getter),
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case len(args) != 1:
				return util.Explain(errOneService, "got %d arguments; pass the InferenceService's name once", len(args))
			case util.CheckOutput(output) != nil:
				return util.ErrOutput
			case !placement.ValidName(args[0]):
				return errName
			}
			target, err := getter.Resolve()
			if err != nil {
				return err
			}
			isvc, tm, tmErr, err := placement.Read(cmd.Context(), target, args[0])
			if err != nil {
				return err
			}
			report := buildStatus(isvc, placement.Report(isvc, tm, tmErr, time.Now()))
			if output == util.OutputJSON || output == util.OutputYAML {
				return util.PrintObject(output, report, streams.Out)
			}
			return util.PrintFixedRows(streams.Out, statusRows(report, output == util.OutputWide))
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", util.OutputTable, "Output: table, wide, json or yaml")
	util.CompleteFlagValues(cmd, "output", util.OutputTable, util.OutputWide, util.OutputJSON, util.OutputYAML)
	return cmd
}

package traffic

import (
	"context"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/ome-routing/operator/cmd/kubectl-ome/app/placement"
	"github.com/ome-routing/operator/cmd/kubectl-ome/app/util"
)

// newStatusCommand is `kubectl ome traffic status`, the follow-up the drain preview prints.
func newStatusCommand(getter *util.ClientGetter, streams genericiooptions.IOStreams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "status INFERENCESERVICE",
		Short: "Show each route home's weight and drains, marked Reported or Computed (read-only)",
		Example: `  # After a drain: is worker-a at weight 0, and which override holds it?
  kubectl ome traffic status chat -n prod`,
	}
	return placement.ReadOnly(cmd, getter, streams, func(ctx context.Context, t util.Target, name string, now time.Time) (runtime.Object, func(bool) []util.Row, error) {
		isvc, tm, tmErr, err := placement.Read(ctx, t, name)
		if err != nil {
			return nil, nil, err
		}
		report := buildStatus(isvc, tm, placement.Report(isvc, tm, tmErr, now))
		return report, func(wide bool) []util.Row { return statusRows(report, wide) }, nil
	})
}

package placement

import (
	"context"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/ome-routing/operator/cmd/kubectl-ome/app/util"
)

func newExplainCommand(getter *util.ClientGetter, streams genericiooptions.IOStreams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "explain INFERENCESERVICE",
		Short: "Show a service's routing settings and each registered workload cluster with its selector match and readiness",
		Long: `Show a service's routing settings and each registered workload cluster with its selector match and readiness.

It reads the InferenceService, its TrafficMap (to tell whether the manager refuses a routing
setting) and the WorkloadClusters, at most 64 of them, and sends nothing to a workload cluster.
Each part of spec.routing reads Inherited (the installation's setting applies), Disabled or
Configured; the installation's own settings are not readable with the plugin's rights. A
WorkloadCluster's Ready says that the control plane reaches its API server, not that it has
capacity. -o wide adds the probe's and the capacity poll's settings and, per cluster, whether
it is a home, its connection source and its Ready reason.`,
		Example: `  # The routing settings of the service chat, and the clusters it may be placed on
  kubectl ome placement explain chat -n prod

  # With the probe's and the poll's settings
  kubectl ome placement explain chat -n prod -o wide`,
	}
	return ReadOnly(cmd, getter, streams, func(ctx context.Context, t util.Target, name string, now time.Time) (runtime.Object, func(bool) []util.Row, error) {
		isvc, tm, tmErr, err := Read(ctx, t, name)
		if err != nil {
			return nil, nil, err
		}
		report := buildExplain(isvc, tm, tmErr, readFleet(ctx, t.Client), now)
		return report, func(wide bool) []util.Row { return explainRows(report, wide) }, nil
	})
}

// explainRows render the explain report: the routing settings, then the fleet and each of
// its clusters; wide adds the probe's and poll's settings and three rows per cluster.
func explainRows(r *ExplainReport, wide bool) []util.Row {
	c := r.Content
	rows := []util.Row{
		{Field: "Routing intent", Value: c.RoutingIntent},
	}
	if c.IntentRefusal != "" {
		rows = append(rows, util.Row{Field: "Frozen", Value: c.IntentRefusal, Wrap: true, Whole: wide})
	}
	rows = append(rows,
		util.Row{Field: "Routing enablement", Value: c.RoutingEnablement},
		util.Row{Field: "Install routing", Value: c.InstallRouting},
	)
	if v := c.Routing; v != nil {
		rows = append(rows,
			util.Row{Field: "Capacity factors", Value: v.CapacityFactors},
			util.Row{Field: "Routing probe", Value: v.Probe},
			util.Row{Field: "Capacity poll", Value: v.Capacity},
			util.Row{Field: "Failover", Value: v.Failover},
			util.Row{Field: "Publisher options", Value: v.PublisherOptions},
		)
		if wide {
			for _, kv := range append(probeDetailRows(v.ProbeSpec), capacityDetailRows(v.CapacitySpec)...) {
				rows = append(rows, util.Row{Field: kv[0], Value: kv[1]})
			}
		}
	}
	if c.Serving != nil && c.RoutingIntent != Absent {
		// The answer routing gives now, after what it intends.
		rows = append(rows, ServingRows(c.Serving, wide)...)
	}
	for _, issue := range c.Issues {
		rows = append(rows, util.Row{Field: "Issue", Value: issue})
	}
	f := c.Fleet
	rows = append(rows,
		util.Row{Field: "Fleet state", Value: f.State},
		util.Row{Field: "Fleet reason", Value: f.Reason},
		util.Row{Field: "Fleet Returned", Value: itoa(f.Returned)},
		util.Row{Field: "Fleet Admitted", Value: itoa(f.Admitted)},
		util.Row{Field: "Fleet Pages", Value: itoa(f.Pages)},
		util.Row{Field: "Fleet Complete", Value: boolWord(f.Complete)},
		util.Row{Field: "Fleet Truncated", Value: boolWord(f.Truncated)},
	)
	more, shown := preview("Clusters", len(f.Clusters), wide)
	rows = append(rows, more...)
	for _, cl := range f.Clusters[:shown] {
		rows = append(rows,
			util.Row{Field: "Cluster", Value: cl.Name},
			util.Row{Field: "Selector compatible", Value: cl.SelectorCompatible},
			util.Row{Field: "Reported WLC Ready", Value: cl.Ready + " (" + cl.ReadyFreshness + ")"},
			util.Row{Field: "Condition inspect", Value: cl.ConditionInspection.String()},
		)
		if wide {
			rows = append(rows,
				util.Row{Field: "Reported home", Value: cl.ReportedHome},
				util.Row{Field: "Connection source", Value: cl.ConnectionSource},
				util.Row{Field: "Ready reason", Value: cl.ReadyReason},
			)
		}
	}
	rows = append(rows, util.Row{Field: "Hint", Value: "WLC Ready is reachability, not capacity"})
	if f.State != Observed {
		rows = append(rows, util.Row{Field: "Hint", Value: "Partial fleet: no global eligibility verdict"})
	}
	return append(rows, viewRow)
}

func boolWord(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

package placement

import (
	"context"
	"strconv"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/ome-routing/operator/cmd/kubectl-ome/app/util"
)

func newStatusCommand(getter *util.ClientGetter, streams genericiooptions.IOStreams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "status INFERENCESERVICE",
		Short: "Show where a service is placed: its phase, selectors and, per home, admitted or admitting and its address",
		Long: `Show where a service is placed: its phase, selectors and, per home, admitted or admitting and its address.

It reads the InferenceService (its spec.placement and the status.placement the control plane
writes) and its TrafficMap, and sends nothing to a workload cluster. A home is Admitted once
its cluster has admitted replicas, Admitting before; -o wide adds each home's admitted and
ready replicas. Placed says that a home holds an addressable copy, not that the service runs
as many replicas as it asks for.`,
		Example: `  # Where the service chat in namespace prod is placed
  kubectl ome placement status chat -n prod

  # Every home, with its replicas
  kubectl ome placement status chat -n prod -o wide`,
	}
	return ReadOnly(cmd, getter, streams, func(ctx context.Context, t util.Target, name string, now time.Time) (runtime.Object, func(bool) []util.Row, error) {
		isvc, tm, tmErr, err := Read(ctx, t, name)
		if err != nil {
			return nil, nil, err
		}
		report := buildStatus(isvc, tm, tmErr, now)
		return report, func(wide bool) []util.Row { return statusRows(report, wide) }, nil
	})
}

// statusRows render the status report: the placement's head rows, the TrafficMap's, then
// each home; wide adds each home's replicas and lists every home.
func statusRows(r *StatusReport, wide bool) []util.Row {
	c := r.Content
	rows := []util.Row{
		{Field: "Mode", Value: c.Mode},
		{Field: "Placement", Value: c.Placement},
		{Field: "Freshness", Value: c.Freshness},
		{Field: "Input source", Value: c.InputSource},
		{Field: "Selectors", Value: c.Selectors},
		{Field: "Reported cluster", Value: c.ReportedCluster},
		{Field: "Endpoint origin", Value: c.EndpointOrigin},
		{Field: "Service origin", Value: c.ServiceOrigin},
		{Field: "Home inspection", Value: c.HomeInspection.String()},
		{Field: "Provenance inspect", Value: c.ProvenanceInspect.String()},
	}
	for _, issue := range c.Issues {
		rows = append(rows, util.Row{Field: "Issue", Value: issue})
	}
	rows = append(rows, mapHeadRows(EndpointContent{TrafficMap: c.TrafficMap, RoutingFreshness: c.RoutingFreshness,
		RoutingStaleReason: c.RoutingStaleReason}, wide)...)
	if c.Serving != nil {
		rows = append(rows, ServingRows(c.Serving, wide)...)
	}
	more, shown := preview("Homes", len(c.Homes), wide)
	rows = append(rows, more...)
	for _, h := range c.Homes[:shown] {
		rows = append(rows,
			util.Row{Field: "Reported home", Value: h.Cluster + " (" + h.State + ")"},
			util.Row{Field: "Home origin", Value: h.HomeOrigin},
			util.Row{Field: "Serving state", Value: h.Serving},
		)
		if wide {
			rows = append(rows,
				util.Row{Field: "Admitted replicas", Value: count(h.AdmittedReplicas)},
				util.Row{Field: "Ready replicas", Value: count(h.ReadyReplicas)},
				util.Row{Field: "Provenance", Value: h.Provenance},
				util.Row{Field: "Policy inspection", Value: h.PolicyInspection.String()},
				util.Row{Field: "Group inspection", Value: h.GroupInspection.String()},
			)
		}
	}
	return append(rows, util.Row{Field: "Hint", Value: "Placed does not prove replica floor met"}, viewRow)
}

func itoa(n int) string { return strconv.Itoa(n) }

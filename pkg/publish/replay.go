package publish

import (
	"fmt"
	"strings"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

// A route held as last published (see HoldBecause) can go while the hold stands: deleted by
// hand, or by a tool that cleans up routes, while the control plane cannot see its
// members. The hold then has nothing to keep, and the plan, which sends nothing, would be
// written in its place. The journal's lastPositive says what the route last sent, so the
// publisher puts that route back instead, from backends of its own that still stand.

// Replay is the route p would have if it carried last, the journal's last publication
// that sent traffic: one backendRef per target, at the target's weight, to the cluster's
// backend, whose host hosts gives (the host the standing backend names). It fails with
// why when last was published under other settings (its compatibility digest is not p's)
// or when a target it sent traffic to has no backend standing.
func Replay(p Plan, last *omev1beta1.TrafficMapPublisherLastPositive, serviceNamespace, serviceName string, hosts map[string]string) (Plan, error) {
	if last == nil {
		return Plan{}, fmt.Errorf("the journal records no publication that sent traffic")
	}
	if last.PlanCompatibilityDigest != CompatibilityDigest(p) {
		return Plan{}, fmt.Errorf("the last publication that sent traffic was written under other endpoint settings")
	}
	out := p
	out.Backends = nil
	// Only the route is written back: the backends, their addresses and policies stand
	// (a backend that does not leaves Replay failing above). A retry budget's
	// BackendTrafficPolicy gone with the route comes back with the next publication.
	out.EndpointSlices, out.TLS, out.RetryBudget = false, false, 0
	for _, t := range last.Targets {
		cluster, ok := strings.CutPrefix(t.Target, clusterTargetPrefix)
		if !ok {
			return Plan{}, fmt.Errorf("the journal's target %q names no cluster", t.Target)
		}
		if t.Weight < 0 || t.Weight > omev1beta1.MaxWeight {
			return Plan{}, fmt.Errorf("the journal's target %q has weight %d, outside 0-%d", t.Target, t.Weight, omev1beta1.MaxWeight)
		}
		host := hosts[cluster]
		if host == "" {
			if t.Weight > 0 {
				return Plan{}, fmt.Errorf("cluster %q, which the last publication sent traffic to, has no backend left", cluster)
			}
			continue // A backend at weight 0 that is gone sent nothing: leave it out.
		}
		labels := Labels(serviceNamespace, serviceName)
		labels[LabelCluster] = cluster
		out.Backends = append(out.Backends, Backend{
			Kind:      p.BackendKind,
			Name:      BackendName(serviceNamespace, serviceName, cluster),
			Namespace: p.Namespace,
			Cluster:   cluster,
			Host:      host,
			Port:      p.BackendPort,
			Weight:    int32(t.Weight), //nolint:gosec // checked to be within 0-MaxWeight above
			Labels:    labels,
		})
	}
	if !out.SendsTraffic() {
		return Plan{}, fmt.Errorf("the last publication that sent traffic has no target with a positive weight")
	}
	out.Route = out.route(p.Route.Name, p.RewriteHostname)
	return out, nil
}

// ReplayClusters are the clusters last sent traffic to, whose backends a replay needs.
func ReplayClusters(last *omev1beta1.TrafficMapPublisherLastPositive) []string {
	if last == nil {
		return nil
	}
	var out []string
	for _, t := range last.Targets {
		if cluster, ok := strings.CutPrefix(t.Target, clusterTargetPrefix); ok {
			out = append(out, cluster)
		}
	}
	return out
}

package routing

import (
	"errors"
	"fmt"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/drain"
	"github.com/ome-routing/operator/pkg/failover"
	"github.com/ome-routing/operator/pkg/trafficmap"
)

// failoverSetting is the failover setting that applies to the service and the path its
// errors name, nil when none does. The service's own is checked here: it may have been
// stored under an older schema. The installation's was checked at startup.
func (r *Reconciler) failoverSetting(isvc *omev1beta1.InferenceService) (*omev1beta1.RoutingFailover, string, error) {
	var own *omev1beta1.RoutingFailover
	if isvc.Spec.Routing != nil {
		own = isvc.Spec.Routing.Failover
	}
	if errs := failover.Validate(own, failover.ServicePath); len(errs) > 0 {
		for i, e := range errs {
			errs[i] = fmt.Errorf("validate routing policy: %w", e)
		}
		return nil, "", errors.Join(errs...)
	}
	f, path := failover.Resolve(own, r.InstallationFailover)
	return f, path, nil
}

// assignTiers puts each home in its tier, by its cluster's name and labels; nil without
// a failover setting. A home whose WorkloadCluster is gone (one held as last written)
// has no labels, and only a tier that names it takes it.
func assignTiers(f *omev1beta1.RoutingFailover, path string, homes []trafficmap.Home, labels map[string]map[string]string) (*failover.Assignment, error) {
	if f == nil {
		return nil, nil
	}
	clusters := make([]failover.Cluster, len(homes))
	for i, h := range homes {
		clusters[i] = failover.Cluster{Name: h.Cluster, Labels: labels[h.Cluster]}
	}
	a, err := failover.Assign(f, path, clusters)
	if err != nil {
		return nil, fmt.Errorf("validate routing policy: %w", err)
	}
	return &a, nil
}

// drainedClusters are the clusters the service's drains name.
func drainedClusters(overrides []drain.Override) []string {
	out := make([]string, 0, len(overrides))
	for _, o := range overrides {
		out = append(out, o.Cluster)
	}
	return out
}

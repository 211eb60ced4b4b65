package drain

import (
	"slices"

	"k8s.io/utils/ptr"

	"github.com/ome-routing/operator/pkg/trafficmap"
)

// Apply holds the drained entries of a built table at weight 0. It runs after the weights
// are reduced, so the entries it leaves alone keep the weights (and the ratio) they had;
// healthy is not touched. Routable is decided again from the drained entries by
// trafficmap.AfterDrains. The input is not modified.
func Apply(result trafficmap.Result, overrides []Override) trafficmap.Result {
	out := trafficmap.Result{Entries: slices.Clone(result.Entries), Failover: result.Failover}
	byCluster := map[string][]string{}
	for _, o := range overrides {
		byCluster[o.Cluster] = append(byCluster[o.Cluster], o.ID)
	}
	for i := range out.Entries {
		e := &out.Entries[i]
		e.DrainRefs = nil
		refs := byCluster[e.Cluster]
		if len(refs) == 0 {
			continue
		}
		e.DrainRefs = slices.Sorted(slices.Values(refs))
		e.Weight = 0
		if e.Load != nil && e.Load.ShadowWeight != nil {
			// The weight Shadow load balancing would set is held at 0 too (a copy: the
			// input's record is not modified).
			e.Load = e.Load.DeepCopy()
			e.Load.ShadowWeight = ptr.To[int32](0)
		}
	}
	out.Routable = trafficmap.AfterDrains(result.Routable, out.Entries)
	return out
}

package routing

import (
	"time"

	"k8s.io/apimachinery/pkg/types"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/controllers/probing"
	"github.com/ome-routing/operator/pkg/capacity"
	"github.com/ome-routing/operator/pkg/trafficmap"
)

// attachCeilings hands the homes to the poller under the resolved capacity poll and puts
// each home's verdict on it. It returns when the earliest reading held expires (zero when
// none does, or the service is not polled). Without a poll, the windows are forgotten.
func (r *Reconciler) attachCeilings(key types.NamespacedName, polls capacity.Resolution, homes []trafficmap.Home) time.Time {
	if !polls.Enabled() {
		r.forgetCapacity(key)
		return time.Time{}
	}
	targets := make([]probing.PollTarget, 0, len(homes))
	for _, h := range homes {
		// A refused home is not polled: its endpoint is outside its cluster's allowed
		// domains, or the observer refused its probe and would refuse the poll alike.
		if h.Refused == "" {
			targets = append(targets, probing.PollTarget{Cluster: h.Cluster, Endpoint: h.Endpoint})
		}
	}
	verdicts, nextExpiry := r.Poller.Sync(key, polls.Policy, polls.Digest, targets)
	for i := range homes {
		if v, ok := verdicts[homes[i].Cluster]; ok {
			homes[i].Ceiling = &v
		}
	}
	return nextExpiry
}

// forgetCapacity stops polling a service and drops its fallback series.
func (r *Reconciler) forgetCapacity(key types.NamespacedName) {
	r.Poller.Forget(key)
	forgetCapacityMetrics(key)
}

func serviceCapacity(isvc *omev1beta1.InferenceService) *omev1beta1.RoutingCapacitySpec {
	if isvc.Spec.Routing == nil {
		return nil
	}
	return isvc.Spec.Routing.Capacity
}

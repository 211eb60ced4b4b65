package publisher

import (
	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/retry"
)

// retryPolicy is the retry and timeouts the service's route carries: the service's own
// blocks over the installation's. The routing reconciler has checked the service's (a bad
// one freezes the map, and the publisher keeps its route), and the manager the
// installation's at startup.
func (r *Reconciler) retryPolicy(isvc *omev1beta1.InferenceService) retry.Policy {
	own, ownTimeouts := retry.Service(isvc)
	return retry.Resolve(own, r.Publisher.Retry, ownTimeouts, r.Publisher.Timeouts)
}

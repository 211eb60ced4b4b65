package trafficmap

import (
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/api/resource"
)

// ValidateCapacityFactors returns one error for every factor that is not positive, in
// cluster name order so that the logged text is stable. A zero factor would silently drain
// a cluster and a negative one has no meaning as a share of traffic, so the controller
// refuses such a policy (and freezes the map) rather than guess.
func ValidateCapacityFactors(factors map[string]resource.Quantity) []error {
	var errs []error
	clusters := make([]string, 0, len(factors))
	for cluster := range factors {
		clusters = append(clusters, cluster)
	}
	slices.Sort(clusters)
	for _, cluster := range clusters {
		q := factors[cluster]
		if q.Sign() > 0 {
			continue
		}
		errs = append(errs, fmt.Errorf("spec.routing.capacityFactors[%q] must be positive, got %q", cluster, q.String()))
	}
	return errs
}

package trafficmap

import (
	"fmt"
	"regexp"
	"slices"

	"k8s.io/apimachinery/pkg/api/resource"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/text"
)

// factorPattern is the CRD's pattern for a factor written as a string.
var factorPattern = regexp.MustCompile(omev1beta1.CapacityFactorPattern)

// maxFactorQuantity is MaxCapacityFactor as a Quantity, for comparisons.
var maxFactorQuantity = *resource.NewQuantity(omev1beta1.MaxCapacityFactor, resource.DecimalSI)

// quotedFactorLimit caps how much of a refused factor an error quotes: the text comes from
// the API server, which stored it under whatever schema it had then.
const quotedFactorLimit = 64

// ParseCapacityFactor reads one factor under the CRD's rules, in the same order as the API
// server: the length and the pattern first, so that resource.ParseQuantity only ever sees a
// short decimal with an exponent of at most two digits (it wraps or hangs on longer ones),
// then the value, above 0 and at most MaxCapacityFactor. The error names the rule; the
// caller adds the field.
func ParseCapacityFactor(f omev1beta1.CapacityFactor) (resource.Quantity, error) {
	s := string(f)
	if len(s) > omev1beta1.CapacityFactorMaxLength || !factorPattern.MatchString(s) {
		return resource.Quantity{}, fmt.Errorf("must be a number of at most %d characters such as \"2\", \"1.5\" or \"500m\" (an exponent has at most two digits), got %q",
			omev1beta1.CapacityFactorMaxLength, text.Cap(s, quotedFactorLimit))
	}
	q, err := resource.ParseQuantity(s)
	if err != nil {
		// The pattern is a subset of the parser's grammar; this is only a backstop.
		return resource.Quantity{}, fmt.Errorf("must be a quantity, got %q: %w", s, err)
	}
	if q.Sign() <= 0 {
		return resource.Quantity{}, fmt.Errorf("must be positive, got %q", q.String())
	}
	if q.Cmp(maxFactorQuantity) > 0 {
		return resource.Quantity{}, fmt.Errorf("must be at most %d, got %q", omev1beta1.MaxCapacityFactor, s)
	}
	return q, nil
}

// ParseCapacityFactors parses every factor of spec.routing.capacityFactors and returns one
// error for every factor it refuses, in cluster name order so that the logged text is
// stable, each naming the field. A zero factor would silently drain a cluster, a negative
// one has no meaning as a share of traffic and one the parser cannot read safely has no
// value at all, so the controller refuses such a policy (and freezes the map) rather than
// guess. The factors are nil when any is refused.
func ParseCapacityFactors(factors map[string]omev1beta1.CapacityFactor) (map[string]resource.Quantity, []error) {
	var errs []error
	clusters := make([]string, 0, len(factors))
	for cluster := range factors {
		clusters = append(clusters, cluster)
	}
	slices.Sort(clusters)
	parsed := make(map[string]resource.Quantity, len(factors))
	for _, cluster := range clusters {
		q, err := ParseCapacityFactor(factors[cluster])
		if err != nil {
			errs = append(errs, fmt.Errorf("spec.routing.capacityFactors[%q] %w", text.Cap(cluster, quotedFactorLimit), err))
			continue
		}
		parsed[cluster] = q
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return parsed, nil
}

package trafficmap

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

// RetainUnobserved decides which unobserved homes (UnobservedSince set) stay in the map at
// now. Within grace of its UnobservedSince a home stays. Past it, it leaves only when some
// observed home can take traffic on its own (an endpoint, not refused, a ready replica):
// the control plane's blindness never takes a service's last homes away, whatever
// allFailedPolicy says, since it says nothing about their data plane, which their probe
// still tests. kept keeps the order of homes; expired are the homes that leave.
// nextExpiry is the earliest time a kept home's grace ends, zero when none will.
func RetainUnobserved(homes []Home, now time.Time, grace time.Duration) (kept, expired []Home, nextExpiry time.Time) {
	observedServes := false
	for _, h := range homes {
		if h.UnobservedSince.IsZero() && h.Endpoint != "" && h.Refused == "" && h.Ready > 0 {
			observedServes = true
			break
		}
	}
	for _, h := range homes {
		if h.UnobservedSince.IsZero() {
			kept = append(kept, h)
			continue
		}
		until := h.UnobservedSince.Add(grace)
		switch {
		case now.Before(until):
			kept = append(kept, h)
			if nextExpiry.IsZero() || until.Before(nextExpiry) {
				nextExpiry = until
			}
		case observedServes:
			expired = append(expired, h)
		default:
			kept = append(kept, h)
		}
	}
	return kept, expired, nextExpiry
}

// UnobservedEntries counts the entries whose cluster the manager cannot read.
func UnobservedEntries(entries []omev1beta1.TrafficMapEntry) int {
	n := 0
	for _, e := range entries {
		if e.UnobservedSince != nil {
			n++
		}
	}
	return n
}

// unobservedSince is the entry's unobservedSince for the home, nil while it is observed.
func unobservedSince(h Home) *metav1.Time {
	if h.UnobservedSince.IsZero() {
		return nil
	}
	t := metav1.NewTime(h.UnobservedSince)
	return &t
}

// UnobservedWording says when the entry's cluster was last observed and what follows.
func UnobservedWording(since time.Time) string {
	return "not observed since " + since.UTC().Format(time.RFC3339) +
		": the manager cannot read its cluster, so the entry keeps its last known endpoint and capacity and the probe alone decides its traffic"
}

// unobservedNote adds UnobservedWording to a message whose reason is another.
func unobservedNote(e omev1beta1.TrafficMapEntry) string {
	if e.UnobservedSince == nil {
		return ""
	}
	return "; " + UnobservedWording(e.UnobservedSince.Time)
}

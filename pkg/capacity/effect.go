package capacity

import (
	"github.com/ome-routing/operator/api/v1beta1"
)

// Effect is what a ceiling does to one entry's capacity block.
type Effect struct {
	// Allocated is the admitted replicas, lowered to the ceiling when it is lower.
	Allocated int32
	// Source is Endpoint only when the ceiling lowered Allocated.
	Source v1beta1.CapacitySource
	// Reported is the ceiling whenever one applies, binding or not; nil otherwise.
	Reported *int32
	// FallbackReason says why a polled home has no ceiling; empty otherwise.
	FallbackReason string
}

// Apply lowers admitted to the ceiling, never raises it. A nil ceiling means the service
// is not polled.
func Apply(admitted int32, c *Ceiling) Effect {
	e := Effect{Allocated: admitted, Source: v1beta1.CapacitySourceControlPlane}
	switch {
	case c == nil:
	case !c.OK:
		e.FallbackReason = c.Reason
	case c.Value < 0:
		// A window never holds a negative reading; if one got here, it caps nothing.
	default:
		v := c.Value
		e.Reported = &v
		if v < admitted {
			e.Allocated, e.Source = v, v1beta1.CapacitySourceEndpoint
		}
	}
	return e
}

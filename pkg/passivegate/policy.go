package passivegate

import (
	"time"

	"github.com/ome-routing/operator/api/v1beta1"
)

// Defaults of the optional fields of a passiveGate block.
const (
	DefaultMinRequests        = 20
	DefaultMaxEjectionPercent = 50
	DefaultBaseEjectionTime   = 30 * time.Second
	DefaultMaxEjectionTime    = 5 * time.Minute
)

// Policy is a validated passiveGate block, its defaults filled in.
type Policy struct {
	// Mode is Shadow when the block leaves it out: a passive gate is tried out on a fleet
	// before it moves traffic.
	Mode v1beta1.ProbeMode
	// FailurePercent is the share of failed requests, 1 to 100, at which a cluster is gated.
	FailurePercent int32
	// MinRequests is the fewest requests over the window on which a ratio is trusted.
	MinRequests int64
	// MaxEjectionPercent caps the share of the service's capacity that passive gates hold
	// out at once.
	MaxEjectionPercent int32
	// BaseEjectionTime is how long the first gate in a row holds a cluster out.
	BaseEjectionTime time.Duration
	// MaxEjectionTime caps the ejection time however many gates came in a row.
	MaxEjectionTime time.Duration
	// ResetAfter is how long a cluster stays ungated before its count of gates in a row
	// goes back to 0: the probe's flapDamping.window when it sets one, else MaxEjectionTime.
	ResetAfter time.Duration
}

// Enforced reports whether the passive gate moves traffic; a Shadow one only records
// wouldGate.
func (p Policy) Enforced() bool { return p.Mode == v1beta1.ProbeModeEnforce }

// ejectionTime is how long the count-th gate in a row holds a cluster out.
func (p Policy) ejectionTime(count int32) time.Duration {
	d := p.BaseEjectionTime
	for i := int32(1); i < count && d < p.MaxEjectionTime; i++ {
		d += p.BaseEjectionTime
	}
	return min(d, p.MaxEjectionTime)
}

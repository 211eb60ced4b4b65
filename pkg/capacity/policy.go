package capacity

import (
	"maps"
	"time"
)

// Where a poll's settings come from, as messages name them.
const (
	// InstallationPath is the installation config's capacity block.
	InstallationPath = "routing.capacity"
	// ServicePath is an InferenceService's own capacity poll.
	ServicePath = "spec.routing.capacity"
)

// Policy is a capacity poll that passed Validate.
type Policy struct {
	Path    string
	Method  string
	Format  string
	Options map[string]string
	Samples int32
	Quorum  int32
	Period  time.Duration
	Timeout time.Duration
	MaxAge  time.Duration
}

// DeepCopy returns a copy that shares no map with p.
func (p Policy) DeepCopy() Policy {
	p.Options = maps.Clone(p.Options)
	return p
}

// Spec is a capacity block as written, before Validate: a nil pointer is a field that was
// left out. The installation config and a service's spec both fill it, so both get the
// same rules.
type Spec struct {
	Disabled bool

	Path    *string
	Method  *string
	Format  *string
	Options map[string]string

	Samples *int32
	Quorum  *int32

	Period  *time.Duration
	Timeout *time.Duration
	MaxAge  *time.Duration
}

// Limits are the installation's observer settings a poll must respect.
type Limits struct {
	// MinPeriod is routing.observer.minPeriod. Zero means no floor.
	MinPeriod time.Duration
	// MaxSamples is routing.observer.maxSamples. Zero means no cap.
	MaxSamples int32
}

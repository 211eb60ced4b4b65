package probe

import (
	"fmt"
	"slices"

	"github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/passivegate"
)

// The CEL rules' messages on ProbePassiveGate; checkPassiveGate's messages contain them.
const (
	msgBaseEjectionPositive = "passiveGate.baseEjectionTime must be positive"
	msgMaxEjectionAtLeast   = "passiveGate.maxEjectionTime must be at least passiveGate.baseEjectionTime (30s when left out)"
)

// checkPassiveGate applies the rules of a passiveGate block; path ends in ".passiveGate".
// Each rule holds on its own, as the CRD's rules do.
func checkPassiveGate(pg PassiveGateSpec, path string) []error {
	var errs []error
	add := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf(format, args...))
	}
	parent := path[:len(path)-len(".passiveGate")]
	if pg.Mode != nil && !slices.Contains(validModes, *pg.Mode) {
		add("%s.mode must be %s or %s, got %q", path, validModes[0], validModes[1], *pg.Mode)
	}
	percent := func(field string, v *int32) {
		if v != nil && (*v < 1 || *v > 100) {
			add("%s.%s must be between 1 and 100, got %d", path, field, *v)
		}
	}
	if pg.FailurePercent == nil {
		add("%s.failurePercent is required", path)
	}
	percent("failurePercent", pg.FailurePercent)
	percent("maxEjectionPercent", pg.MaxEjectionPercent)
	if v := pg.MinRequests; v != nil && (*v < 1 || *v > v1beta1.MaxPassiveGateMinRequests) {
		add("%s.minRequests must be between 1 and %d, got %d", path, v1beta1.MaxPassiveGateMinRequests, *v)
	}
	base := passivegate.DefaultBaseEjectionTime
	if b := pg.BaseEjectionTime; b != nil {
		base = *b
		if *b <= 0 {
			add("%s.%s", parent, msgBaseEjectionPositive)
		}
	}
	if m := pg.MaxEjectionTime; m != nil && *m < base {
		add("%s.%s, got %s", parent, msgMaxEjectionAtLeast, *m)
	}
	return errs
}

// passiveGatePolicy fills in a valid block's defaults. Its count of gates in a row resets
// after the probe's flapDamping.window when it sets one, so that both forget a home's
// past alike; without damping, after maxEjectionTime.
func passiveGatePolicy(pg PassiveGateSpec, fd *FlapDamping) *passivegate.Policy {
	p := &passivegate.Policy{
		Mode:               v1beta1.ProbeModeShadow,
		FailurePercent:     *pg.FailurePercent,
		MinRequests:        passivegate.DefaultMinRequests,
		MaxEjectionPercent: passivegate.DefaultMaxEjectionPercent,
		BaseEjectionTime:   passivegate.DefaultBaseEjectionTime,
		MaxEjectionTime:    passivegate.DefaultMaxEjectionTime,
	}
	if pg.Mode != nil {
		p.Mode = v1beta1.ProbeMode(*pg.Mode)
	}
	if pg.MinRequests != nil {
		p.MinRequests = int64(*pg.MinRequests)
	}
	if pg.MaxEjectionPercent != nil {
		p.MaxEjectionPercent = *pg.MaxEjectionPercent
	}
	if pg.BaseEjectionTime != nil {
		p.BaseEjectionTime = *pg.BaseEjectionTime
	}
	if pg.MaxEjectionTime != nil {
		p.MaxEjectionTime = *pg.MaxEjectionTime
	}
	p.MaxEjectionTime = max(p.MaxEjectionTime, p.BaseEjectionTime)
	p.ResetAfter = p.MaxEjectionTime
	if fd != nil {
		p.ResetAfter = fd.Window
	}
	return p
}

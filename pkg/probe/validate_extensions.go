package probe

import (
	"fmt"
	"slices"

	"github.com/ome-routing/operator/api/v1beta1"
)

// validModes are the values of mode; left out, a probe enforces.
var validModes = []string{string(v1beta1.ProbeModeEnforce), string(v1beta1.ProbeModeShadow)}

// optionalFieldNames are the probe's optional fields, in the order messages name them.
// Like the nine, none of them may be combined with disabled.
var optionalFieldNames = []string{"mode", "flapDamping", "rampUp", "passiveGate"}

// hasOptional reports whether spec sets one of the optional fields.
func hasOptional(spec Spec) bool {
	return spec.Mode != nil || spec.FlapDamping != nil || spec.RampUp != nil || spec.PassiveGate != nil
}

// checkOptional applies the rules of mode, flapDamping and rampUp. Both sources word them
// alike: the installation's manager has no older wording for them to match. Each rule
// holds on its own, as the CRD's CEL rules do, so a rampUp of 0s under a period of 10s is
// both not positive and shorter than the period.
func checkOptional(spec Spec, path string) []error {
	var errs []error
	add := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf(format, args...))
	}
	if spec.Mode != nil && !slices.Contains(validModes, *spec.Mode) {
		add("%s.mode must be %s or %s, got %q", path, validModes[0], validModes[1], *spec.Mode)
	}
	if r := spec.RampUp; r != nil {
		if *r <= 0 {
			add("%s.rampUp must be positive", path)
		}
		if spec.Period != nil && *r < *spec.Period {
			add("%s.rampUp (%s) must be at least %s.period (%s)", path, *r, path, *spec.Period)
		}
	}
	if fd := spec.FlapDamping; fd != nil {
		if fd.Window == nil {
			add("%s.flapDamping.window is required", path)
		} else {
			if *fd.Window <= 0 {
				add("%s.flapDamping.window must be positive", path)
			}
			if spec.Period != nil && *fd.Window < *spec.Period {
				add("%s.flapDamping.window (%s) must be at least %s.period (%s)", path, *fd.Window, path, *spec.Period)
			}
		}
		switch m := fd.MaxFactor; {
		case m == nil:
			add("%s.flapDamping.maxFactor is required", path)
		case *m < v1beta1.MinDampingFactor || *m > v1beta1.MaxDampingFactor:
			add("%s.flapDamping.maxFactor must be between %d and %d, got %d", path,
				v1beta1.MinDampingFactor, v1beta1.MaxDampingFactor, *m)
		}
	}
	if pg := spec.PassiveGate; pg != nil {
		errs = append(errs, checkPassiveGate(*pg, path+".passiveGate")...)
	}
	return errs
}

// withOptional fills in the optional fields of a policy whose spec passed every rule.
func withOptional(p Policy, spec Spec) Policy {
	if spec.Mode != nil {
		p.Mode = v1beta1.ProbeMode(*spec.Mode)
	}
	if spec.RampUp != nil {
		p.RampUp = *spec.RampUp
	}
	if fd := spec.FlapDamping; fd != nil {
		p.FlapDamping = &FlapDamping{Window: *fd.Window, MaxFactor: *fd.MaxFactor}
	}
	if pg := spec.PassiveGate; pg != nil {
		p.PassiveGate = passiveGatePolicy(*pg, p.FlapDamping)
	}
	return p
}

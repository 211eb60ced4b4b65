package probe

import (
	"math"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ome-routing/operator/api/v1beta1"
)

// Transition is what an observation did to a home's gate.
type Transition int

const (
	// NoChange means the gate is as it was.
	NoChange Transition = iota
	// Gated means the home reached failureThreshold Failing results in a row and lost its weight.
	Gated
	// Ungated means the home's gate lifted, after successThreshold Passing results in a row or
	// because the policy changed.
	Ungated
)

func (t Transition) String() string {
	switch t {
	case NoChange:
		return "NoChange"
	case Gated:
		return "Gated"
	case Ungated:
		return "Ungated"
	default:
		return "Transition(?)"
	}
}

// State is one home's probe counts and gate under one policy.
//
// ConsecutiveSuccesses lives only in memory: the TrafficMap records consecutiveFailures,
// not successes. A home that was gated when the prober restarted therefore needs
// successThreshold fresh Passing results before its gate lifts, even if it had passed
// some already. That errs towards keeping a failing home out of traffic.
type State struct {
	Result               v1beta1.ProbeResult
	Message              string
	Gated                bool
	ConsecutiveFailures  int32
	ConsecutiveSuccesses int32
	LastProbeTime        time.Time
	PolicyDigest         string
	// Probed is true once the home has a result to record, observed or restored.
	Probed bool

	// The state of the optional settings (see damping.go and ramp.go); all zero without
	// them. Gated is the gate the counts set whatever the mode: a Shadow policy records it
	// as wouldGate, and RecordFor says which.

	// LastLift is when the gate last lifted after passes in a row, kept only when the
	// policy damps flaps or ramps.
	LastLift time.Time
	// DampingFactor multiplies successThreshold for the current gate; 0 and 1 are none.
	DampingFactor int32
	// RampPercent is the home's share of its weight while it ramps up, 1 to 99; 0 when it
	// is not ramping.
	RampPercent int32
}

// Seed restores a home's state from its TrafficMap entry. The record is kept only when it
// was made under the policy with this digest; otherwise the home starts over, ungated with
// no counts, because a changed policy lifts the gates.
func Seed(persisted *v1beta1.TrafficMapProbe, digest string) State {
	if persisted == nil || persisted.PolicyDigest != digest {
		return State{PolicyDigest: digest}
	}
	s := State{
		Result:  persisted.Result,
		Message: persisted.Message,
		// The digest leaves the mode out, so a gate recorded in Shadow is the same gate:
		// a switch to Enforce while the prober was down still takes effect.
		Gated:               persisted.Gated || persisted.WouldGate,
		ConsecutiveFailures: max(persisted.ConsecutiveFailures, 0),
		PolicyDigest:        digest,
		Probed:              true,
		DampingFactor:       min(max(persisted.DampingFactor, 0), v1beta1.MaxDampingFactor),
		RampPercent:         min(max(persisted.RampPercent, 0), 99),
	}
	if persisted.LastProbeTime != nil {
		s.LastProbeTime = persisted.LastProbeTime.Time
	}
	if persisted.LastLiftTime != nil {
		s.LastLift = persisted.LastLiftTime.Time
	}
	return s
}

// Observe records one counted result, finished at at, and moves the counts and the gate.
// Failing gates the home at p.FailureThreshold in a row; Passing lifts the gate at
// p.SuccessThreshold in a row (times the damping factor under p.FlapDamping); each resets
// the other's count. Unknown is recorded but moves neither the counts nor the gate, nor a
// ramp. Under p.RampUp a lift starts a ramp, which each later Passing result moves on and
// a new gate ends at once. The mode does not change the counts or the gate, only what
// RecordFor makes of them.
//
// digest is Digest(p), which the caller already holds: hashing the policy on every probe
// would put a SHA-256 on the prober's hot path. If it is not the digest the state was
// counted under, the counts and the gate start over first, as Seed would have done, so a
// caller that missed a policy change cannot carry a gate across it.
func (s *State) Observe(result v1beta1.ProbeResult, message string, at time.Time, p Policy, digest string) Transition {
	wasGated := s.Gated
	if digest != s.PolicyDigest {
		*s = State{PolicyDigest: digest}
	}
	s.Result, s.Message, s.LastProbeTime, s.Probed = result, message, at, true

	switch result {
	case v1beta1.ProbeFailing:
		s.ConsecutiveSuccesses = 0
		s.ConsecutiveFailures = increment(s.ConsecutiveFailures)
		if s.ConsecutiveFailures >= p.FailureThreshold && !s.Gated {
			s.gate(at, p)
		}
	case v1beta1.ProbePassing:
		s.ConsecutiveFailures = 0
		s.ConsecutiveSuccesses = increment(s.ConsecutiveSuccesses)
		switch {
		case s.Gated && s.ConsecutiveSuccesses >= liftThreshold(p, s.DampingFactor):
			s.lift(at, p)
		case !s.Gated:
			s.RampPercent = advanceRamp(s.RampPercent, at.Sub(s.LastLift), p)
		}
	}
	s.relax(at, p)

	switch {
	case s.Gated && !wasGated:
		return Gated
	case !s.Gated && wasGated:
		return Ungated
	default:
		return NoChange
	}
}

// increment counts up without wrapping: a home that fails for years stays at the maximum.
func increment(n int32) int32 {
	if n == math.MaxInt32 {
		return n
	}
	return n + 1
}

// gate closes the gate at at: the ramp, if any, ends at once, and under flap damping a gate
// that comes less than a window after the last lift doubles the factor the next lift needs.
func (s *State) gate(at time.Time, p Policy) {
	s.Gated = true
	s.RampPercent = 0
	s.DampingFactor = nextDampingFactor(s.DampingFactor, s.LastLift, at, p.FlapDamping)
}

// lift opens the gate at at, and starts the ramp under p.RampUp (not in Shadow, whose gate
// never took the weight away).
func (s *State) lift(at time.Time, p Policy) {
	s.Gated = false
	if !p.remembersLifts() {
		return
	}
	s.LastLift = at
	if p.RampUp > 0 && !p.Shadow() {
		s.RampPercent = rampShare(0, p)
	}
}

// Record returns the home's probe block for its TrafficMap entry as an Enforce policy
// records it, or nil until the home has been probed. lastProbeTime and lastLiftTime are cut
// to whole seconds in UTC, as the API serializes them, so a record compares equal to the
// one read back from the map and an unchanged state does not cause a write.
func (s State) Record() *v1beta1.TrafficMapProbe {
	if !s.Probed {
		return nil
	}
	r := &v1beta1.TrafficMapProbe{
		PolicyDigest:        s.PolicyDigest,
		Result:              s.Result,
		Message:             s.Message,
		Gated:               s.Gated,
		ConsecutiveFailures: s.ConsecutiveFailures,
		RampPercent:         s.RampPercent,
		LastProbeTime:       wholeSeconds(s.LastProbeTime),
		LastLiftTime:        wholeSeconds(s.LastLift),
	}
	if s.DampingFactor > 1 {
		r.DampingFactor = s.DampingFactor
	}
	return r
}

// RecordFor is Record under p's mode. A Shadow policy records its gate as wouldGate, never
// as gated, and no ramp, so that the entry's weight and health are as without a probe.
func (s State) RecordFor(p Policy) *v1beta1.TrafficMapProbe {
	r := s.Record()
	if r == nil || !p.Shadow() {
		return r
	}
	r.WouldGate, r.Gated = r.Gated, false
	r.RampPercent = 0
	return r
}

func wholeSeconds(t time.Time) *metav1.Time {
	if t.IsZero() {
		return nil
	}
	mt := metav1.NewTime(t.UTC().Truncate(time.Second))
	return &mt
}

// Recast returns a probe record kept from a TrafficMap, for a home that is not probed now
// (its member is not connected), as policy p with this digest would record it: the same
// gate, as gated or as wouldGate by p's mode, and no ramp in Shadow. A record made under
// another digest, or none, is returned as it is.
func Recast(r *v1beta1.TrafficMapProbe, p Policy, digest string) *v1beta1.TrafficMapProbe {
	if r == nil || r.PolicyDigest != digest {
		return r
	}
	c := r.DeepCopy()
	gate := c.Gated || c.WouldGate
	if p.Shadow() {
		c.WouldGate, c.Gated, c.RampPercent = gate, false, 0
	} else {
		c.Gated, c.WouldGate = gate, false
	}
	return c
}

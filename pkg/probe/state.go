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
}

// Seed restores a home's state from its TrafficMap entry. The record is kept only when it
// was made under the policy with this digest; otherwise the home starts over, ungated with
// no counts, because a changed policy lifts the gates.
func Seed(persisted *v1beta1.TrafficMapProbe, digest string) State {
	if persisted == nil || persisted.PolicyDigest != digest {
		return State{PolicyDigest: digest}
	}
	s := State{
		Result:              persisted.Result,
		Message:             persisted.Message,
		Gated:               persisted.Gated,
		ConsecutiveFailures: max(persisted.ConsecutiveFailures, 0),
		PolicyDigest:        digest,
		Probed:              true,
	}
	if persisted.LastProbeTime != nil {
		s.LastProbeTime = persisted.LastProbeTime.Time
	}
	return s
}

// Observe records one counted result, finished at at, and moves the counts and the gate.
// Failing gates the home at p.FailureThreshold in a row; Passing lifts the gate at
// p.SuccessThreshold in a row; each resets the other's count. Unknown is recorded but
// moves neither the counts nor the gate.
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
		if s.ConsecutiveFailures >= p.FailureThreshold {
			s.Gated = true
		}
	case v1beta1.ProbePassing:
		s.ConsecutiveFailures = 0
		s.ConsecutiveSuccesses = increment(s.ConsecutiveSuccesses)
		if s.ConsecutiveSuccesses >= p.SuccessThreshold {
			s.Gated = false
		}
	}

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

// Record returns the home's probe block for its TrafficMap entry, or nil until the home has
// been probed. lastProbeTime is cut to whole seconds in UTC, as the API serializes it, so a
// record compares equal to the one read back from the map and an unchanged state does not
// cause a write.
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
	}
	if !s.LastProbeTime.IsZero() {
		t := metav1.NewTime(s.LastProbeTime.UTC().Truncate(time.Second))
		r.LastProbeTime = &t
	}
	return r
}

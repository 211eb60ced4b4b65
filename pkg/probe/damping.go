package probe

import (
	"math"
	"time"
)

// Flap damping, after route-flap damping (RFC 2439) and Envoy's ejection multiplier, at the
// level of a whole home: a home that is gated again less than Window after its gate last
// lifted needs more passes in a row to lift the next time. The factor starts at 1, doubles
// with each such quick re-gate in a row (successThreshold x 2^k) up to MaxFactor, and goes
// back to 1 once a full Window has passed since the last lift without a new gate, and on
// a gate that comes later than Window after it.

// nextDampingFactor is the factor a gate closing at at gives, from the factor before it
// and the time of the last lift. 0 stands for 1 (no damping), as the record omits it.
func nextDampingFactor(factor int32, lastLift, at time.Time, fd *FlapDamping) int32 {
	if fd == nil || lastLift.IsZero() || at.Sub(lastLift) >= fd.Window {
		return 0
	}
	next := int64(max(factor, 1)) * 2
	return int32(min(next, int64(max(fd.MaxFactor, 1)))) //nolint:gosec // at most MaxFactor
}

// liftThreshold is how many passes in a row lift a gate with the given damping factor:
// successThreshold times the factor, held within int32.
func liftThreshold(p Policy, factor int32) int32 {
	n := int64(p.SuccessThreshold) * int64(max(factor, 1))
	return int32(min(n, math.MaxInt32)) //nolint:gosec // capped above
}

// relax brings the damping factor back to 1 once a full window has passed since the last
// lift without a new gate. A factor left from a policy without damping (which another
// digest would have reset anyway) goes too.
func (s *State) relax(at time.Time, p Policy) {
	if s.DampingFactor == 0 || s.Gated {
		return
	}
	if p.FlapDamping == nil || !at.Before(s.LastLift.Add(p.FlapDamping.Window)) {
		s.DampingFactor = 0
	}
}

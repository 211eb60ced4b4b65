package passivegate

import "time"

// Ramp is a rampUp curve: the share of its weight, 1 to 99 percent, that a cluster gets
// elapsed after its gate lifted, and 0 once the ramp is over. The probe's rampUp gives
// it (probe.Policy.RampShare), so a passive lift comes back as slowly as a probe lift.
type Ramp func(elapsed time.Duration) int32

// RampPercent is the share of its weight a cluster whose passive gate lifted gets at now:
// ramp's share since the last lift, while no passive gate holds it. An enforcing gate
// only: a Shadow gate never took the weight away, so it has nothing to bring back. 0 when
// no ramp runs. A lift stamped after now (another leader's clock) starts the ramp from
// its first step.
func (p Policy) RampPercent(st State, now time.Time, ramp Ramp) int32 {
	if !p.Enforced() || ramp == nil || st.Gated || st.LastLift.IsZero() {
		return 0
	}
	return ramp(max(now.Sub(st.LastLift), 0))
}

package probe

import (
	"math"
	"math/bits"
	"time"
)

// The ramp brings a home whose gate lifted back to its full weight over RampUp, instead of
// at once, so that a cold model server or cache is not handed its whole share in one go.
//
// The curve is linear in probe rounds: a Passing result that comes k periods after the lift
// (the time since the lift in periods, to the nearest whole one) sets the share to
//
//	round(100 * (k + 1) * period / (rampUp + period)) percent, halves up
//
// so the lift itself (k = 0) gives period/(rampUp+period) of the weight, each round as much
// again, and the share reaches 100% (the ramp ends) rampUp after the lift. Counting whole
// periods keeps a round whose probe finishes late or early (a busy observer, a slow
// answer) on the step it belongs to, so the steps are even. With period 10s and rampUp 1m:
// 14%, 29%, 43%, 57%, 71%, 86%, then the full weight. Only a Passing result moves the ramp
// on: a Failing one that does not gate, or an Unknown, holds the share where it is; a gate
// ends the ramp at once. The share applies to the home's servable capacity before the
// ratio reduction (pkg/trafficmap).

// rampShare is the share, 1 to 99 percent, of a ramp elapsed after its lift; 0 once the
// ramp is over or without one.
func rampShare(elapsed time.Duration, p Policy) int32 {
	if p.Shadow() {
		return 0
	}
	return p.RampShare(elapsed)
}

// RampShare is the share, 1 to 99 percent, of the rampUp curve elapsed after a lift,
// whatever the probe's mode; 0 once the ramp is over or without one. The passive gate's
// lifts follow the same curve, under the passive gate's own mode.
func (p Policy) RampShare(elapsed time.Duration) int32 {
	if p.RampUp <= 0 || elapsed >= p.RampUp {
		return 0
	}
	elapsed = max(elapsed, 0)
	period := max(p.Period, 1)
	// Whole periods since the lift, to the nearest: a late or early round stays on its step.
	rounds := saturatingAdd(elapsed, period/2) / period
	if rounds > p.RampUp/period {
		return 0 // past rampUp
	}
	// rounds*period is at most rampUp, so num = (rounds+1)*period is at most den.
	num, den := saturatingAdd(rounds*period, period), saturatingAdd(p.RampUp, period)
	// round(100 * num / den) = floor((200 * num + den) / (2 * den)), in 128 bits: the
	// quotient is at most 100 and fits; den < 2^63, so 2 * den fits.
	un, ud := uint64(num), uint64(den) //nolint:gosec // both positive: elapsed, period and rampUp are
	hi, lo := bits.Mul64(200, un)
	lo, carry := bits.Add64(lo, ud, 0)
	q, _ := bits.Div64(hi+carry, lo, 2*ud)
	if q >= 100 {
		return 0 // the round at rampUp, or less than half a percent short of it: over
	}
	return int32(max(q, 1)) //nolint:gosec // within 1..99
}

// NextRampStep is how long after elapsed the curve's share next changes: the middle of
// the next probe period, where a round counts as the following step.
func (p Policy) NextRampStep(elapsed time.Duration) time.Duration {
	period := max(p.Period, 1)
	elapsed = max(elapsed, 0)
	rounds := saturatingAdd(elapsed, period/2) / period
	return max(saturatingAdd(rounds*period, period/2)-elapsed, 1)
}

// advanceRamp moves a ramp on at a Passing result that comes elapsed after the lift. A
// home that is not ramping (current 0) stays so.
func advanceRamp(current int32, elapsed time.Duration, p Policy) int32 {
	if current <= 0 {
		return 0
	}
	return rampShare(elapsed, p)
}

func saturatingAdd(a, b time.Duration) time.Duration {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

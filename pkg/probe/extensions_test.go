package probe

import (
	"reflect"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ome-routing/operator/api/v1beta1"
)

// start is when the tests' first probe round finishes.
var start = time.Date(2026, 1, 2, 3, 4, 0, 0, time.UTC)

// rounds drives a state through results, one probe period apart, and returns the time of
// the last.
type rounds struct {
	t  *testing.T
	s  State
	p  Policy
	at time.Time
}

func newRounds(t *testing.T, p Policy) *rounds {
	return &rounds{t: t, s: State{PolicyDigest: Digest(p)}, p: p, at: start}
}

// run observes the results one period apart; it returns the last transition.
func (r *rounds) run(results ...v1beta1.ProbeResult) Transition {
	r.t.Helper()
	var last Transition
	for _, res := range results {
		r.at = r.at.Add(r.p.Period)
		last = r.s.Observe(res, "HTTP", r.at, r.p, Digest(r.p))
	}
	return last
}

// passesToLift counts the passes in a row that lift the (closed) gate, at most limit.
func (r *rounds) passesToLift(limit int) int {
	r.t.Helper()
	if !r.s.Gated {
		r.t.Fatalf("passesToLift on an open gate: %+v", r.s)
	}
	for n := 1; n <= limit; n++ {
		if r.run(P) == Ungated {
			return n
		}
	}
	r.t.Fatalf("the gate did not lift in %d passes: %+v", limit, r.s)
	return 0
}

func repeat(res v1beta1.ProbeResult, n int) []v1beta1.ProbeResult {
	out := make([]v1beta1.ProbeResult, n)
	for i := range out {
		out[i] = res
	}
	return out
}

func dampedPolicy(window time.Duration, maxFactor int32) Policy {
	p := step1Policy() // failureThreshold 3, successThreshold 2, period 10s
	p.FlapDamping = &FlapDamping{Window: window, MaxFactor: maxFactor}
	return p
}

func TestFlapDampingDoublesWithEachQuickRegate(t *testing.T) {
	r := newRounds(t, dampedPolicy(10*time.Minute, 8))
	// k = 0: the first gate lifts after successThreshold passes.
	want := []int{2, 4, 8, 16, 16, 16}
	wantFactor := []int32{0, 2, 4, 8, 8, 8}
	for i := range want {
		if got := r.run(repeat(F, 3)...); got != Gated {
			t.Fatalf("gate %d: transition %v, want Gated", i+1, got)
		}
		if r.s.DampingFactor != wantFactor[i] {
			t.Fatalf("gate %d: dampingFactor %d, want %d", i+1, r.s.DampingFactor, wantFactor[i])
		}
		if got := r.passesToLift(100); got != want[i] {
			t.Fatalf("gate %d: lifted after %d passes, want %d (successThreshold x %d)", i+1, got, want[i], max(wantFactor[i], 1))
		}
		if !r.s.LastLift.Equal(r.at) {
			t.Fatalf("gate %d: lastLift %v, want the lifting round %v", i+1, r.s.LastLift, r.at)
		}
	}
}

func TestFlapDampingResetsAfterAQuietWindow(t *testing.T) {
	window := 2 * time.Minute // 12 rounds of 10s
	r := newRounds(t, dampedPolicy(window, 4))
	r.run(repeat(F, 3)...)
	r.passesToLift(10)
	r.run(repeat(F, 3)...) // 30s after the lift: a flap
	if r.s.DampingFactor != 2 {
		t.Fatalf("dampingFactor %d after a quick re-gate, want 2", r.s.DampingFactor)
	}
	if got := r.passesToLift(10); got != 4 {
		t.Fatalf("lifted after %d passes, want 4", got)
	}
	lift := r.at
	// Passes up to a round before the window is over keep the factor; the round at the
	// window's end brings it back to 1.
	for r.at.Add(r.p.Period).Before(lift.Add(window)) {
		r.run(P)
		if r.s.DampingFactor != 2 {
			t.Fatalf("at %v after the lift: dampingFactor %d, want 2 until the window is over", r.at.Sub(lift), r.s.DampingFactor)
		}
	}
	r.run(P)
	if !r.at.Equal(lift.Add(window)) || r.s.DampingFactor != 0 {
		t.Fatalf("at %v after the lift: dampingFactor %d, want 0 at exactly the window", r.at.Sub(lift), r.s.DampingFactor)
	}
	r.run(repeat(F, 3)...)
	if got := r.passesToLift(10); got != 2 {
		t.Fatalf("a gate after a quiet window lifted after %d passes, want successThreshold (2)", got)
	}
}

func TestFlapDampingLateGateStartsOver(t *testing.T) {
	r := newRounds(t, dampedPolicy(time.Minute, 8))
	r.run(repeat(F, 3)...)
	r.passesToLift(10)
	r.run(repeat(F, 3)...) // 30s after the lift
	r.passesToLift(10)
	// Failures that gate only a window after the lift: Unknown rounds first, which hold
	// neither the counts nor the factor back.
	r.run(repeat(U, 4)...)
	r.run(repeat(F, 3)...) // 70s after the lift
	if r.s.DampingFactor != 0 {
		t.Fatalf("dampingFactor %d for a gate a window after the lift, want 0", r.s.DampingFactor)
	}
	if got := r.passesToLift(10); got != 2 {
		t.Fatalf("lifted after %d passes, want 2", got)
	}
}

func TestFlapDampingFactorHoldsWhileGated(t *testing.T) {
	r := newRounds(t, dampedPolicy(time.Minute, 8))
	r.run(repeat(F, 3)...)
	r.passesToLift(10)
	r.run(repeat(F, 3)...)
	// Failing for far longer than the window does not relax the factor of a closed gate.
	r.run(repeat(F, 30)...)
	if r.s.DampingFactor != 2 {
		t.Fatalf("dampingFactor %d after a long outage, want 2 until the gate lifts", r.s.DampingFactor)
	}
	if got := r.passesToLift(10); got != 4 {
		t.Fatalf("lifted after %d passes, want 4", got)
	}
}

func TestNoDampingWithoutTheSetting(t *testing.T) {
	r := newRounds(t, step1Policy())
	for i := range 4 {
		r.run(repeat(F, 3)...)
		if got := r.passesToLift(10); got != 2 {
			t.Fatalf("gate %d lifted after %d passes, want 2", i+1, got)
		}
		if r.s.DampingFactor != 0 || !r.s.LastLift.IsZero() || r.s.RampPercent != 0 {
			t.Fatalf("gate %d: state %+v has damping or ramp state without the settings", i+1, r.s)
		}
	}
}

func TestLiftThresholdSaturates(t *testing.T) {
	p := step1Policy()
	p.SuccessThreshold = 1 << 30
	if got := liftThreshold(p, 64); got != 1<<31-1 {
		t.Fatalf("liftThreshold = %d, want MaxInt32", got)
	}
}

func rampPolicy(rampUp time.Duration) Policy {
	p := step1Policy()
	p.RampUp = rampUp
	return p
}

func TestRampSteps(t *testing.T) {
	tests := []struct {
		name   string
		rampUp time.Duration
		want   []int32 // the share at the lift and at each Passing round after it
	}{
		// 100 * (elapsed + 10s) / (rampUp + 10s), to the nearest percent.
		{"one minute", time.Minute, []int32{14, 29, 43, 57, 71, 86, 0}},
		{"equal to period", 10 * time.Second, []int32{50, 0}},
		{"40s", 40 * time.Second, []int32{20, 40, 60, 80, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRounds(t, rampPolicy(tt.rampUp))
			r.run(repeat(F, 3)...)
			r.run(P)
			if r.run(P) != Ungated {
				t.Fatal("no lift at the second pass")
			}
			got := []int32{r.s.RampPercent}
			for r.s.RampPercent > 0 {
				r.run(P)
				got = append(got, r.s.RampPercent)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("shares %v, want %v", got, tt.want)
			}
		})
	}
}

func TestRampHoldsOnFailingAndUnknownAndEndsOnAGate(t *testing.T) {
	r := newRounds(t, rampPolicy(time.Minute))
	r.run(repeat(F, 3)...)
	r.run(P, P)
	r.run(P) // 29%
	for _, res := range []v1beta1.ProbeResult{U, F, F} {
		r.run(res)
		if r.s.RampPercent != 29 || r.s.Gated {
			t.Fatalf("after %s: share %d gated %v, want 29 and open", res, r.s.RampPercent, r.s.Gated)
		}
	}
	// The next pass moves on to where the time since the lift puts it: 50s, 86%; the one
	// after, a minute after the lift, ends the ramp.
	if r.run(P); r.s.RampPercent != 86 {
		t.Fatalf("share %d 50s after the lift, want 86", r.s.RampPercent)
	}
	if r.run(P); r.s.RampPercent != 0 {
		t.Fatalf("share %d a minute after the lift, want 0 (the ramp is over)", r.s.RampPercent)
	}

	r.run(repeat(F, 3)...)
	r.run(P, P) // lifted again: a new ramp
	r.run(P)
	if r.s.RampPercent != 29 {
		t.Fatalf("second ramp at %d, want 29", r.s.RampPercent)
	}
	r.run(F, F)
	if got := r.run(F); got != Gated || r.s.RampPercent != 0 {
		t.Fatalf("a new gate: transition %v share %d, want Gated and the ramp over at once", got, r.s.RampPercent)
	}
}

func TestRampShareBounds(t *testing.T) {
	p := rampPolicy(time.Minute)
	for _, tt := range []struct {
		elapsed time.Duration
		want    int32
	}{
		{-time.Hour, 14}, // a lift time in the future counts as now
		{0, 14},
		{4900 * time.Millisecond, 14}, // the lift's round, finished late
		{5 * time.Second, 29},         // half a period: the next round
		{24 * time.Second, 43},        // a round four seconds late stays on its step
		{16 * time.Second, 43},        // and so does one four seconds early
		{54900 * time.Millisecond, 86},
		{55 * time.Second, 0}, // the round at rampUp: over
		{time.Minute, 0},
		{time.Hour, 0},
	} {
		if got := rampShare(tt.elapsed, p); got != tt.want {
			t.Errorf("rampShare(%v) = %d, want %d", tt.elapsed, got, tt.want)
		}
	}
	huge := rampPolicy(1<<62 + 1)
	huge.Period = 1 << 62
	if got := rampShare(0, huge); got < 1 || got > 99 {
		t.Errorf("rampShare with durations near the limit = %d, want 1..99", got)
	}
	if got := rampShare(0, step1Policy()); got != 0 {
		t.Errorf("rampShare without rampUp = %d, want 0", got)
	}
}

func shadowPolicy() Policy {
	p := step1Policy()
	p.Mode = v1beta1.ProbeModeShadow
	return p
}

// A Shadow probe counts and gates exactly as an Enforce one: only its record differs.
func TestShadowCountsAsEnforce(t *testing.T) {
	results := []v1beta1.ProbeResult{F, F, F, P, F, F, F, F, P, U, P, P, F, P}
	enforce, shadow := newRounds(t, step1Policy()), newRounds(t, shadowPolicy())
	for i, res := range results {
		te, ts := enforce.run(res), shadow.run(res)
		if te != ts || !reflect.DeepEqual(enforce.s, shadow.s) {
			t.Fatalf("round %d (%s): enforce %v %+v, shadow %v %+v", i, res, te, enforce.s, ts, shadow.s)
		}
	}
	if Digest(enforce.p) != Digest(shadow.p) {
		t.Fatal("the mode changes the digest")
	}
}

func TestRecordFor(t *testing.T) {
	enforce, shadow := rampPolicy(time.Minute), rampPolicy(time.Minute)
	shadow.Mode = v1beta1.ProbeModeShadow
	r := newRounds(t, enforce)
	r.run(repeat(F, 3)...)

	if got := r.s.RecordFor(shadow); got.Gated || !got.WouldGate {
		t.Fatalf("Shadow record of a gate = %+v, want wouldGate and not gated", got)
	}
	if got := r.s.RecordFor(enforce); !got.Gated || got.WouldGate {
		t.Fatalf("Enforce record of a gate = %+v, want gated", got)
	}
	r.run(P, P, P)
	if got := r.s.RecordFor(shadow); got.RampPercent != 0 || got.WouldGate || got.Gated {
		t.Fatalf("Shadow record of a ramping home = %+v, want no ramp and no gate", got)
	}
	if got := r.s.RecordFor(enforce); got.RampPercent != 29 || got.LastLiftTime == nil {
		t.Fatalf("Enforce record of a ramping home = %+v, want rampPercent 29 and lastLiftTime", got)
	}
	if got := (State{}).RecordFor(shadow); got != nil {
		t.Fatalf("record of an unprobed home = %+v, want nil", got)
	}
}

func TestShadowStartsNoRamp(t *testing.T) {
	r := newRounds(t, rampPolicy(time.Minute))
	r.p.Mode = v1beta1.ProbeModeShadow
	r.run(repeat(F, 3)...)
	if r.run(P, P) != Ungated || r.s.RampPercent != 0 {
		t.Fatalf("a Shadow lift: %+v, want no ramp (its gate never took the weight)", r.s)
	}
	// A ramp under way when the policy turns to Shadow ends at the next pass.
	r.p.Mode = v1beta1.ProbeModeEnforce
	r.run(repeat(F, 3)...)
	r.run(P, P)
	r.p.Mode = v1beta1.ProbeModeShadow
	if r.run(P); r.s.RampPercent != 0 {
		t.Fatalf("share %d after a pass in Shadow, want 0", r.s.RampPercent)
	}
}

func TestSeedAndRecordOfTheOptionalState(t *testing.T) {
	p := dampedPolicy(10*time.Minute, 8)
	p.RampUp = time.Minute
	digest := Digest(p)
	probed := metav1.NewTime(start)
	lifted := metav1.NewTime(start.Add(-20 * time.Second))
	persisted := &v1beta1.TrafficMapProbe{
		PolicyDigest: digest, Result: P, Message: "HTTP 200", ConsecutiveFailures: 0,
		LastProbeTime: &probed, DampingFactor: 4, RampPercent: 43, LastLiftTime: &lifted,
	}
	s := Seed(persisted, digest)
	if s.DampingFactor != 4 || s.RampPercent != 43 || !s.LastLift.Equal(lifted.Time) {
		t.Fatalf("Seed = %+v, want the damping factor, the ramp and the lift restored", s)
	}
	if got := s.RecordFor(p); !reflect.DeepEqual(got, persisted) {
		t.Fatalf("Record after Seed:\n got %+v\nwant %+v", got, persisted)
	}
	// The ramp carries on from the restored lift time.
	s.Observe(P, "HTTP 200", start.Add(10*time.Second), p, digest)
	if s.RampPercent != 57 {
		t.Fatalf("share %d 30s after the restored lift, want 57", s.RampPercent)
	}

	shadowGate := &v1beta1.TrafficMapProbe{PolicyDigest: digest, Result: F, WouldGate: true, ConsecutiveFailures: 3}
	if s := Seed(shadowGate, digest); !s.Gated {
		t.Fatal("a gate recorded in Shadow is not restored as the gate")
	}
	bad := &v1beta1.TrafficMapProbe{PolicyDigest: digest, Result: F, DampingFactor: 1000, RampPercent: 250}
	if s := Seed(bad, digest); s.DampingFactor != v1beta1.MaxDampingFactor || s.RampPercent != 99 {
		t.Fatalf("Seed of out-of-range values = %+v, want them within bounds", s)
	}
}

func TestRecast(t *testing.T) {
	p := rampPolicy(time.Minute)
	digest := Digest(p)
	shadow := p
	shadow.Mode = v1beta1.ProbeModeShadow
	gated := &v1beta1.TrafficMapProbe{PolicyDigest: digest, Result: F, Gated: true, ConsecutiveFailures: 3}
	ramping := &v1beta1.TrafficMapProbe{PolicyDigest: digest, Result: P, RampPercent: 40}

	if got := Recast(gated, shadow, digest); got.Gated || !got.WouldGate {
		t.Fatalf("Recast of a gate under Shadow = %+v", got)
	}
	if got := Recast(Recast(gated, shadow, digest), p, digest); !reflect.DeepEqual(got, gated) {
		t.Fatalf("Recast back to Enforce = %+v, want %+v", got, gated)
	}
	if got := Recast(ramping, shadow, digest); got.RampPercent != 0 {
		t.Fatalf("Recast of a ramp under Shadow = %+v, want no ramp", got)
	}
	if got := Recast(ramping, p, digest); got != ramping && !reflect.DeepEqual(got, ramping) {
		t.Fatalf("Recast under the same Enforce policy changed the record: %+v", got)
	}
	if got := Recast(gated, shadow, "sha256:other"); got != gated {
		t.Fatal("a record of another digest was recast")
	}
	if Recast(nil, shadow, digest) != nil {
		t.Fatal("Recast(nil) is not nil")
	}
	if gated.WouldGate || !gated.Gated {
		t.Fatal("Recast modified its argument")
	}
}

// The passive gate follows the same curve under its own mode: RampShare ignores the
// probe's, and NextRampStep says when the share moves on (the middle of the next period).
func TestRampShareForPassiveLifts(t *testing.T) {
	p := rampPolicy(time.Minute)
	p.Mode = v1beta1.ProbeModeShadow
	if got := p.RampShare(0); got != 14 {
		t.Errorf("RampShare(0) under a Shadow probe = %d, want 14", got)
	}
	if got := rampShare(0, p); got != 0 {
		t.Errorf("a Shadow probe's own ramp = %d, want 0", got)
	}
	for _, tt := range []struct{ elapsed, want time.Duration }{
		{0, 5 * time.Second},
		{4 * time.Second, time.Second},
		{5 * time.Second, 10 * time.Second},
		{-time.Hour, 5 * time.Second},
	} {
		next := p.NextRampStep(tt.elapsed)
		if next != tt.want {
			t.Errorf("NextRampStep(%v) = %v, want %v", tt.elapsed, next, tt.want)
		}
		if tt.elapsed >= 0 && p.RampShare(tt.elapsed+next) == p.RampShare(tt.elapsed) {
			t.Errorf("the share at %v + %v is still %d", tt.elapsed, next, p.RampShare(tt.elapsed))
		}
	}
}

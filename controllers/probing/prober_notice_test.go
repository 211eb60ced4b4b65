package probing

import (
	"net/http"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/ome-routing/operator/pkg/probe"
)

// A result that gates a home still waits for its sibling's probe, so that homes failing
// together reach the map in one write, and the round is then announced as a transition.
// The reconciler's next Sync records how long the transition waited for it, and ends it:
// the next round is a plain refresh.
func TestProberAnnouncesATransitionWithItsRound(t *testing.T) {
	failing, passing := newCountingServer(t), newCountingServer(t)
	failing.status.Store(http.StatusServiceUnavailable)
	passing.hold.Store(true) // b answers when the test says: a's result comes first
	f := startFakeProber(t, 4)
	policy := testPolicy(2*time.Minute, time.Minute) // gates after 2 failures
	targets := []ProbeTarget{{Cluster: "a", Endpoint: failing.URL}, {Cluster: "b", Endpoint: passing.URL}}
	f.Sync(testKey, testUID, policy, probe.Digest(policy), targets)
	next := func() (ProbeNotice, bool) {
		select {
		case e := <-f.Events():
			return e.Object, true
		default:
			return ProbeNotice{}, false
		}
	}
	// round runs one round: a fails, then b passes once a's result is in. It reports
	// whether a's result was announced before b's answer.
	round := func(n int32) bool {
		t.Helper()
		f.stepTo(f.nextDue()) // the first round is due at once
		eventually(t, "a's probe is recorded", func() bool {
			st, _ := f.state(testKey, "a")
			return failing.total.Load() == n && st.ConsecutiveFailures == n
		})
		eventually(t, "b's probe is in flight", func() bool { return passing.now.Load() == 1 })
		early := len(f.Events()) > 0
		f.clk.Step(10 * time.Millisecond)
		passing.release <- struct{}{}
		eventually(t, "the round is recorded", func() bool { return passing.total.Load() == n && f.idle() })
		return early
	}

	if round(1) {
		t.Fatal("a's first failure was announced while b was running")
	}
	if n, ok := next(); !ok || n.Transition || n.Counted {
		t.Fatalf("after a's first failure: notice %+v (sent %v), want a refresh", n, ok)
	}
	if round(2) {
		t.Fatal("a gated while b is running: a notice was sent, want it to wait for b")
	}
	n, ok := next()
	if !ok || !n.Transition || n.Service != testKey {
		t.Fatalf("the round of a's gate: notice %+v (sent %v), want a transition for %s", n, ok, testKey)
	}

	count0, sum0 := transitionWaitTotals(t)
	f.clk.Step(300 * time.Millisecond)
	f.Sync(testKey, testUID, policy, probe.Digest(policy), targets)
	count, sum := transitionWaitTotals(t)
	if count != count0+1 || sum-sum0 < 0.309 || sum-sum0 > 0.311 {
		t.Errorf("transition wait: %d more observations summing %.3fs, want 1 of 0.31s (from the gate to the Sync)", count-count0, sum-sum0)
	}
	f.Sync(testKey, testUID, policy, probe.Digest(policy), targets)
	if again, _ := transitionWaitTotals(t); again != count {
		t.Errorf("a second Sync observed the same transition again")
	}
	round(3)
	if n, ok := next(); !ok || n.Transition || n.Counted {
		t.Fatalf("the round after the reconciler read the gate: notice %+v (sent %v), want a refresh: a gated home's count is not urgent", n, ok)
	}
}

// A pass that ends an ungated home's run of failures is urgent: until it is written, the
// map says the home has been failing in a row, and a new leader would count on from there.
// Failures, passes after passes and anything while gated are refreshes.
func TestProberMarksAChangedFailureCount(t *testing.T) {
	srv := newCountingServer(t)
	f := startFakeProber(t, 4)
	policy := testPolicy(10*time.Second, 5*time.Second) // gates after 2 failures
	targets := []ProbeTarget{{Cluster: "a", Endpoint: srv.URL}}
	f.Sync(testKey, testUID, policy, probe.Digest(policy), targets)
	var probes int32
	round := func(status int32) ProbeNotice {
		t.Helper()
		srv.status.Store(status)
		probes++
		f.stepTo(f.nextDue()) // the first round is due at once
		eventually(t, "the probe is recorded", func() bool { return srv.total.Load() == probes && f.idle() })
		select {
		case e := <-f.Events():
			f.Sync(testKey, testUID, policy, probe.Digest(policy), targets) // the reconciler reads the states
			return e.Object
		default:
			t.Fatal("no notice after a round")
			return ProbeNotice{}
		}
	}
	const failed, passed = http.StatusServiceUnavailable, http.StatusOK
	for i, step := range []struct {
		status              int32
		transition, counted bool
	}{
		{passed, false, false}, // nothing was failing
		{failed, false, false}, // a failure not yet written can only delay a gate
		{passed, false, true},  // the run ends
		{passed, false, false},
		{failed, false, false},
		{failed, true, false},  // gated: a transition
		{failed, false, false}, // a gated home's count moves nothing
		{passed, true, false},  // the pass that lifts it (successThreshold 1) is a transition, not a count
	} {
		if n := round(step.status); n.Transition != step.transition || n.Counted != step.counted {
			t.Errorf("round %d: notice %+v, want transition %v, counted %v", i, n, step.transition, step.counted)
		}
	}
}

// transitionWaitTotals is the transition wait histogram's count and sum so far.
func transitionWaitTotals(t *testing.T) (uint64, float64) {
	t.Helper()
	m := &dto.Metric{}
	if err := transitionWait.Write(m); err != nil {
		t.Fatal(err)
	}
	return m.GetHistogram().GetSampleCount(), m.GetHistogram().GetSampleSum()
}

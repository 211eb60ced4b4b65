package controllers

import (
	"context"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ome-routing/operator/pkg/observer"
	"github.com/ome-routing/operator/pkg/probe"
)

// A gate or a lift is worked on before the refreshes already queued, including one for
// the very service, which it raises.
func TestProbeNoticesQueueTransitionsFirst(t *testing.T) {
	q := priorityqueue.New[reconcile.Request]("routing-priority-test")
	defer q.ShutDown()
	h := probeNoticeHandler()
	send := func(name string, transition, counted bool) {
		h.Generic(context.Background(), event.TypedGenericEvent[ProbeNotice]{Object: ProbeNotice{
			Service: types.NamespacedName{Namespace: "ns", Name: name}, Transition: transition, Counted: counted}}, q)
	}
	notice := func(name string, transition bool) { send(name, transition, false) }
	notice("refreshed-first", false)
	notice("refreshed-then-gated", false)
	// What the other watches add (a service edited, say, which may be refused) comes at
	// the queue's default priority.
	q.Add(reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "ns", Name: "edited"}})
	// A changed failure count goes behind gates, ahead of the rest.
	send("counted", false, true)
	notice("gated", true)
	notice("refreshed-then-gated", true)
	// A refresh never lowers a queued transition.
	notice("gated", false)

	want := []string{"gated", "refreshed-then-gated", "counted", "edited", "refreshed-first"}
	for i, name := range want {
		req, _, _ := q.GetWithPriority()
		if req.Name != name {
			t.Fatalf("item %d out of the queue is %s, want %s (order %v)", i, req.Name, name, want)
		}
		q.Done(req)
	}
}

// A result that gates a home still waits for its sibling's probe, so that homes failing
// together reach the map in one write, and the round is then announced as a transition.
// The reconciler's next Sync records how long the transition waited for it, and ends it:
// the next round is a plain refresh.
func TestProberAnnouncesATransitionWithItsRound(t *testing.T) {
	p := NewProber(nil, 4) // finish is driven by hand, with a hand-moved clock
	clk := clocktesting.NewFakeClock(epoch)
	p.clock = clk
	policy := testPolicy(time.Second, 100*time.Millisecond) // gates after 2 failures
	targets := []ProbeTarget{{Cluster: "a", Endpoint: "http://a"}, {Cluster: "b", Endpoint: "http://b"}}
	p.Sync(testKey, testUID, policy, probe.Digest(policy), targets)
	mp := p.maps[testKey]
	a, b := mp.homes["a"], mp.homes["b"]
	dispatch := func(h *homeProbe) {
		p.queue.remove(h)
		h.running = true
		p.running++
		h.owner.running++
	}
	failed := observer.Result{Outcome: observer.OutcomeResponse, StatusCode: 503}
	passed := observer.Result{Outcome: observer.OutcomeResponse, StatusCode: 200}
	next := func() (ProbeNotice, bool) {
		select {
		case e := <-p.Events():
			return e.Object, true
		default:
			return ProbeNotice{}, false
		}
	}

	// Every home due is dispatched by hand before any finishes: finish sends what is due.
	dispatch(a)
	dispatch(b)
	p.finish(context.Background(), a, failed) // first failure: no transition yet
	p.finish(context.Background(), b, passed)
	if n, ok := next(); !ok || n.Transition || n.Counted {
		t.Fatalf("after a's first failure: notice %+v (sent %v), want a refresh", n, ok)
	}
	dispatch(a)
	dispatch(b)
	p.finish(context.Background(), a, failed) // second failure: a is gated
	if n, ok := next(); ok {
		t.Fatalf("a gated while b is running: notice %+v sent, want it to wait for b", n)
	}
	clk.Step(10 * time.Millisecond)
	p.finish(context.Background(), b, passed)
	n, ok := next()
	if !ok || !n.Transition || n.Service != testKey {
		t.Fatalf("the round of a's gate: notice %+v (sent %v), want a transition for %s", n, ok, testKey)
	}

	count0, sum0 := transitionWaitTotals(t)
	clk.Step(300 * time.Millisecond)
	p.Sync(testKey, testUID, policy, probe.Digest(policy), targets)
	count, sum := transitionWaitTotals(t)
	if count != count0+1 || sum-sum0 < 0.309 || sum-sum0 > 0.311 {
		t.Errorf("transition wait: %d more observations summing %.3fs, want 1 of 0.31s (from the gate to the Sync)", count-count0, sum-sum0)
	}
	p.Sync(testKey, testUID, policy, probe.Digest(policy), targets)
	if again, _ := transitionWaitTotals(t); again != count {
		t.Errorf("a second Sync observed the same transition again")
	}
	dispatch(a)
	dispatch(b)
	p.finish(context.Background(), a, failed)
	p.finish(context.Background(), b, passed)
	if n, ok := next(); !ok || n.Transition || n.Counted {
		t.Fatalf("the round after the reconciler read the gate: notice %+v (sent %v), want a refresh: a gated home's count is not urgent", n, ok)
	}
}

// A pass that ends an ungated home's run of failures is urgent: until it is written, the
// map says the home has been failing in a row, and a new leader would count on from there.
// Failures, passes after passes and anything while gated are refreshes.
func TestProberMarksAChangedFailureCount(t *testing.T) {
	p := NewProber(nil, 4)
	p.clock = clocktesting.NewFakeClock(epoch)
	policy := testPolicy(time.Second, 100*time.Millisecond) // gates after 2 failures
	targets := []ProbeTarget{{Cluster: "a", Endpoint: "http://a"}}
	p.Sync(testKey, testUID, policy, probe.Digest(policy), targets)
	a := p.maps[testKey].homes["a"]
	round := func(res observer.Result) ProbeNotice {
		t.Helper()
		p.queue.remove(a)
		a.running = true
		p.running++
		a.owner.running++
		p.finish(context.Background(), a, res)
		select {
		case e := <-p.Events():
			p.Sync(testKey, testUID, policy, probe.Digest(policy), targets) // the reconciler reads the states
			return e.Object
		default:
			t.Fatal("no notice after a round")
			return ProbeNotice{}
		}
	}
	failed := observer.Result{Outcome: observer.OutcomeResponse, StatusCode: 503}
	passed := observer.Result{Outcome: observer.OutcomeResponse, StatusCode: 200}
	for i, step := range []struct {
		res                 observer.Result
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
		if n := round(step.res); n.Transition != step.transition || n.Counted != step.counted {
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

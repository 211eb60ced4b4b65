package controllers

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/observer"
	"github.com/ome-routing/operator/pkg/probe"
)

// countingServer answers after delay with status and counts requests, in total and in
// flight at once.
type countingServer struct {
	*httptest.Server
	status                atomic.Int32
	total, now, maxAtOnce atomic.Int32
}

func newCountingServer(t *testing.T, delay time.Duration) *countingServer {
	s := &countingServer{}
	s.status.Store(http.StatusOK)
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		s.total.Add(1)
		n := s.now.Add(1)
		defer s.now.Add(-1)
		for m := s.maxAtOnce.Load(); n > m && !s.maxAtOnce.CompareAndSwap(m, n); m = s.maxAtOnce.Load() {
		}
		time.Sleep(delay)
		w.WriteHeader(int(s.status.Load()))
	}))
	t.Cleanup(s.Close)
	return s
}

func testPolicy(period, timeout time.Duration) probe.Policy {
	return probe.Policy{
		Path: "/v1/models", Method: "GET",
		AcceptStatuses: []int32{200}, GateStatuses: []int32{503},
		Period: period, Timeout: timeout, FailureThreshold: 2, SuccessThreshold: 1,
		AllFailedPolicy: omev1beta1.AllFailedPreserveTraffic,
	}
}

func startProber(t *testing.T, maxRequests int64) *Prober {
	obs, err := observer.New(observer.Options{MaxConcurrentRequests: maxRequests, MaxResponseBytes: 1024, AllowLoopback: true})
	if err != nil {
		t.Fatal(err)
	}
	p := NewProber(obs, int(maxRequests))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = p.Start(ctx); close(done) }()
	// Drain the notifications, as the routing controller would.
	go func() {
		for {
			select {
			case <-p.Events():
			case <-ctx.Done():
				return
			}
		}
	}()
	t.Cleanup(func() { cancel(); <-done; obs.Close() })
	return p
}

func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

var testKey = types.NamespacedName{Namespace: "ns", Name: "svc"}

func TestProberGatesAndNeverOverlapsAHome(t *testing.T) {
	// Each answer takes longer than the period: the next probe must wait for it.
	srv := newCountingServer(t, 80*time.Millisecond)
	srv.status.Store(http.StatusServiceUnavailable)
	p := startProber(t, 4)
	policy := testPolicy(30*time.Millisecond, 200*time.Millisecond)
	digest := probe.Digest(policy)
	targets := []ProbeTarget{{Cluster: "worker-a", Endpoint: srv.URL + "/"}}

	eventually(t, "the home is gated", func() bool {
		return p.Sync(testKey, policy, digest, targets)["worker-a"].Gated
	})
	st := p.Sync(testKey, policy, digest, targets)["worker-a"]
	if st.Message != "HTTP 503" || st.Result != omev1beta1.ProbeFailing {
		t.Errorf("state = %+v, want Failing HTTP 503", st)
	}
	if got := srv.maxAtOnce.Load(); got != 1 {
		t.Errorf("a home had %d probes in flight at once, want 1", got)
	}
}

func TestProberForgetStopsProbing(t *testing.T) {
	srv := newCountingServer(t, 0)
	p := startProber(t, 4)
	policy := testPolicy(20*time.Millisecond, 10*time.Millisecond)
	p.Sync(testKey, policy, probe.Digest(policy), []ProbeTarget{{Cluster: "worker-a", Endpoint: srv.URL}})
	eventually(t, "the home is probed", func() bool { return srv.total.Load() >= 2 })

	p.Forget(testKey)
	time.Sleep(30 * time.Millisecond) // let a probe already in flight finish
	after := srv.total.Load()
	time.Sleep(100 * time.Millisecond)
	if got := srv.total.Load(); got != after {
		t.Errorf("after Forget the endpoint got %d more requests", got-after)
	}
}

func TestProberSyncSeedsFromThePersistedBlock(t *testing.T) {
	p := NewProber(nil, 1) // never started: Sync alone decides the states
	policy := testPolicy(time.Hour, time.Second)
	digest := probe.Digest(policy)
	now := metav1.Now()
	persisted := &omev1beta1.TrafficMapProbe{PolicyDigest: digest, Result: omev1beta1.ProbeFailing,
		Message: "HTTP 503", Gated: true, ConsecutiveFailures: 5, LastProbeTime: &now}

	st := p.Sync(testKey, policy, digest, []ProbeTarget{{Cluster: "worker-a", Endpoint: "http://x", Persisted: persisted}})
	if !st["worker-a"].Gated || st["worker-a"].ConsecutiveFailures != 5 {
		t.Errorf("same digest: state = %+v, want the persisted gate and count", st["worker-a"])
	}

	other := testPolicy(time.Hour, 2*time.Second)
	st = p.Sync(testKey, other, probe.Digest(other), []ProbeTarget{{Cluster: "worker-a", Endpoint: "http://x", Persisted: persisted}})
	if st["worker-a"].Gated || st["worker-a"].ConsecutiveFailures != 0 || st["worker-a"].Record() != nil {
		t.Errorf("another digest: state = %+v, want a fresh start", st["worker-a"])
	}

	st = p.Sync(testKey, other, probe.Digest(other), nil)
	if len(st) != 0 || p.queue.Len() != 0 {
		t.Errorf("a home left out of targets must stop being scheduled: states %v, queue %d", st, p.queue.Len())
	}
}

func TestProberDiscardsCancelledProbes(t *testing.T) {
	srv := newCountingServer(t, 300*time.Millisecond)
	p := startProber(t, 4)
	policy := testPolicy(50*time.Millisecond, time.Second)
	digest := probe.Digest(policy)
	targets := []ProbeTarget{{Cluster: "worker-a", Endpoint: srv.URL}}
	p.Sync(testKey, policy, digest, targets)
	eventually(t, "a probe is in flight", func() bool { return srv.now.Load() == 1 })

	p.Forget(testKey)
	time.Sleep(50 * time.Millisecond)
	if st := p.Sync(testKey, policy, digest, targets)["worker-a"]; st.Probed {
		t.Errorf("a probe cancelled by Forget was counted: %+v", st)
	}
}

func TestProberCapsProbesInFlight(t *testing.T) {
	// Answers take far longer than the period, so every home is always due: only the
	// prober's own cap keeps the dispatched probes at two.
	srv := newCountingServer(t, 100*time.Millisecond)
	obs, err := observer.New(observer.Options{MaxConcurrentRequests: 64, MaxResponseBytes: 1024, AllowLoopback: true})
	if err != nil {
		t.Fatal(err)
	}
	defer obs.Close()
	p := NewProber(obs, 2)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = p.Start(ctx) }()
	go func() {
		for range p.Events() {
		}
	}()
	policy := testPolicy(10*time.Millisecond, time.Second)
	var targets []ProbeTarget
	for i := range 10 {
		targets = append(targets, ProbeTarget{Cluster: fmt.Sprintf("worker-%d", i), Endpoint: srv.URL})
	}
	p.Sync(testKey, policy, probe.Digest(policy), targets)
	eventually(t, "every home is probed", func() bool {
		for _, st := range p.Sync(testKey, policy, probe.Digest(policy), targets) {
			if !st.Probed {
				return false
			}
		}
		return true
	})
	if got := srv.maxAtOnce.Load(); got != 2 {
		t.Errorf("the endpoint saw %d probes at once, want the prober's cap of 2", got)
	}
}

func TestProberAnnouncesAMapOncePerRound(t *testing.T) {
	srv := newCountingServer(t, 0)
	obs, err := observer.New(observer.Options{MaxConcurrentRequests: 8, MaxResponseBytes: 1024, AllowLoopback: true})
	if err != nil {
		t.Fatal(err)
	}
	defer obs.Close()
	p := NewProber(obs, 8)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = p.Start(ctx) }()
	policy := testPolicy(200*time.Millisecond, 100*time.Millisecond)
	var targets []ProbeTarget
	for i := range 4 {
		targets = append(targets, ProbeTarget{Cluster: fmt.Sprintf("worker-%d", i), Endpoint: srv.URL})
	}
	p.Sync(testKey, policy, probe.Digest(policy), targets)

	var events int
	deadline := time.After(10 * time.Second)
	for srv.total.Load() < 12 {
		select {
		case <-p.Events():
			events++
		case <-deadline:
			t.Fatal("timed out waiting for three rounds of probes")
		}
	}
	// Three rounds of four homes: one announcement per round, not one per result.
	if rounds := int(srv.total.Load()) / 4; events > rounds+1 {
		t.Errorf("got %d announcements for %d rounds of 4 homes, want about one per round", events, rounds)
	}
}

func TestProberAnnouncementWaitsForSiblingsAtMostATimeout(t *testing.T) {
	p := NewProber(nil, 4) // finish is driven by hand, with a hand-moved clock
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	p.now = func() time.Time { return clock }
	policy := testPolicy(time.Second, 100*time.Millisecond)
	p.Sync(testKey, policy, probe.Digest(policy), []ProbeTarget{{Cluster: "a", Endpoint: "http://a"}, {Cluster: "b", Endpoint: "http://b"}})
	mp := p.maps[testKey]
	a, b := mp.homes["a"], mp.homes["b"]
	dispatch := func(h *homeProbe) {
		p.queue.remove(h)
		h.running = true
		p.running++
		h.owner.running++
	}
	passed := observer.Result{Outcome: observer.OutcomeResponse, StatusCode: 200}
	announced := func() bool {
		select {
		case <-p.Events():
			return true
		default:
			return false
		}
	}

	dispatch(a)
	dispatch(b)
	p.finish(context.Background(), a, passed)
	if announced() {
		t.Fatal("announced while a sibling was still being probed")
	}
	// b keeps running; a's next result comes a full timeout after the first one.
	dispatch(a)
	clock = clock.Add(policy.Timeout)
	p.finish(context.Background(), a, passed)
	if !announced() {
		t.Fatal("a result that waited a whole timeout for a sibling must be announced")
	}
	p.finish(context.Background(), b, passed)
	if !announced() {
		t.Fatal("the last home of a round to finish must announce its result")
	}
}

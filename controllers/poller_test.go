package controllers

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/ome-routing/operator/pkg/capacity"
	"github.com/ome-routing/operator/pkg/observer"
	"github.com/ome-routing/operator/pkg/probe"
)

// reportServer answers capacity polls with its current servable count, or with status
// when that is not 200, or not at all while hang is set.
type reportServer struct {
	*httptest.Server
	servable atomic.Int32
	status   atomic.Int32
	hang     atomic.Bool
	total    atomic.Int32
}

func newReportServer(t *testing.T, servable int32) *reportServer {
	s := &reportServer{}
	s.servable.Store(servable)
	s.status.Store(http.StatusOK)
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.total.Add(1)
		if s.hang.Load() {
			<-r.Context().Done()
			return
		}
		if code := int(s.status.Load()); code != http.StatusOK {
			w.WriteHeader(code)
			return
		}
		fmt.Fprintf(w, `{"servable": %d, "observedAt": %q}`, s.servable.Load(), time.Now().UTC().Format(time.RFC3339Nano))
	}))
	t.Cleanup(s.Close)
	return s
}

func testPoll(period, timeout time.Duration, quorum int32) capacity.Policy {
	return capacity.Policy{Path: "/capacity", Method: "GET", Format: capacity.FormatReport,
		Samples: 3, Quorum: quorum, Period: period, Timeout: timeout, MaxAge: time.Duration(quorum+1) * period}
}

func newTestObserver(t *testing.T, maxRequests int64) *observer.Observer {
	obs, err := observer.New(observer.Options{MaxConcurrentRequests: maxRequests, MaxResponseBytes: 1024, AllowLoopback: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(obs.Close)
	return obs
}

func startPoller(t *testing.T, obs *observer.Observer, maxRequests int, onFinish func(types.NamespacedName)) *Poller {
	p := NewPoller(obs, maxRequests)
	p.onFinish = onFinish
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = p.Start(ctx); close(done) }()
	go func() {
		for {
			select {
			case <-p.Events():
			case <-ctx.Done():
				return
			}
		}
	}()
	t.Cleanup(func() { cancel(); <-done })
	return p
}

func verdict(p *Poller, policy capacity.Policy, targets []PollTarget, cluster string) capacity.Ceiling {
	v, _ := p.Sync(testKey, policy, capacity.Digest(policy), targets)
	return v[cluster]
}

func TestPollerCapsAfterQuorumAndFallsBackOnFailure(t *testing.T) {
	srv := newReportServer(t, 0)
	p := startPoller(t, newTestObserver(t, 4), 4, nil)
	policy := testPoll(30*time.Millisecond, 20*time.Millisecond, 2)
	targets := []PollTarget{{Cluster: "worker-b", Endpoint: srv.URL}}

	if got := verdict(p, policy, targets, "worker-b"); got.Reason != "no capacity report yet" {
		t.Fatalf("first verdict = %+v, want no report yet", got)
	}
	eventually(t, "worker-b is capped at 0", func() bool {
		return verdict(p, policy, targets, "worker-b") == capacity.Ceiling{OK: true, Value: 0}
	})
	srv.status.Store(http.StatusNotFound)
	eventually(t, "worker-b falls back", func() bool {
		return verdict(p, policy, targets, "worker-b").Reason == "capacity endpoint returned HTTP 404"
	})
	srv.status.Store(http.StatusOK)
	srv.servable.Store(1)
	eventually(t, "worker-b is capped at 1 again", func() bool {
		return verdict(p, policy, targets, "worker-b") == capacity.Ceiling{OK: true, Value: 1}
	})
}

func TestPollerStartsOverOnNewEndpointOrPolicy(t *testing.T) {
	srv := newReportServer(t, 2)
	other := newReportServer(t, 2)
	other.hang.Store(true)
	p := startPoller(t, newTestObserver(t, 4), 4, nil)
	policy := testPoll(30*time.Millisecond, 20*time.Millisecond, 1)
	targets := []PollTarget{{Cluster: "worker-a", Endpoint: srv.URL}}
	eventually(t, "worker-a is capped", func() bool { return verdict(p, policy, targets, "worker-a").OK })

	// The new endpoint hangs, so its window stays empty: the old readings are gone.
	moved := []PollTarget{{Cluster: "worker-a", Endpoint: other.URL}}
	if got := verdict(p, policy, moved, "worker-a"); got.Reason != "no capacity report yet" {
		t.Errorf("after an endpoint change: %+v, want an empty window", got)
	}
	eventually(t, "worker-a is capped again", func() bool { return verdict(p, policy, targets, "worker-a").OK })
	changed := policy
	changed.Samples = 2
	if got := verdict(p, changed, targets, "worker-a"); got.Reason != "no capacity report yet" {
		t.Errorf("after a setting change: %+v, want an empty window", got)
	}
}

func TestPollerNextExpiry(t *testing.T) {
	srv := newReportServer(t, 1)
	p := startPoller(t, newTestObserver(t, 4), 4, nil)
	policy := testPoll(30*time.Millisecond, 20*time.Millisecond, 1)
	targets := []PollTarget{{Cluster: "worker-a", Endpoint: srv.URL}}
	if _, expiry := p.Sync(testKey, policy, capacity.Digest(policy), targets); !expiry.IsZero() {
		t.Errorf("Sync() gave an expiry for an empty window")
	}
	eventually(t, "worker-a is capped", func() bool { return verdict(p, policy, targets, "worker-a").OK })
	_, expiry := p.Sync(testKey, policy, capacity.Digest(policy), targets)
	if expiry.IsZero() || expiry.After(time.Now().Add(policy.MaxAge)) {
		t.Errorf("Sync() gave no expiry for a window holding a reading")
	}
}

// At saturation, one service's polls (every one hanging until its timeout) must not
// starve another service's probes: the poller takes at most half the observer's slots,
// and the observer serves waiters in order, so the probes keep running while the polls
// wait their turn.
func TestPollsDoNotStarveAnotherServicesProbes(t *testing.T) {
	const slots = 2
	obs := newTestObserver(t, slots)
	hanging := newReportServer(t, 1)
	hanging.hang.Store(true)
	fast := newCountingServer(t)

	var polls atomic.Int32
	pollKey := types.NamespacedName{Namespace: "ns", Name: "heavy"}
	poller := startPoller(t, obs, slots, func(types.NamespacedName) { polls.Add(1) })
	prober := startProberOn(t, obs, slots)

	// Service "heavy": 40 homes, every poll due at once and hanging for its timeout.
	poll := testPoll(time.Second, 200*time.Millisecond, 1)
	var targets []PollTarget
	for i := range 40 {
		targets = append(targets, PollTarget{Cluster: fmt.Sprintf("worker-%02d", i), Endpoint: hanging.URL})
	}
	poller.Sync(pollKey, poll, capacity.Digest(poll), targets)

	// Service "light": one home probed every 10ms.
	policy := testPolicy(10*time.Millisecond, 8*time.Millisecond)
	probeKey := types.NamespacedName{Namespace: "ns", Name: "light"}
	prober.Sync(probeKey, "", policy, probe.Digest(policy), []ProbeTarget{{Cluster: "worker-a", Endpoint: fast.URL}})

	// While 20 polls time out one after another (the poller holds one slot, 200ms each),
	// the probes have the other slot and run every period: about twenty per poll. Had the
	// polls been allowed every slot, a probe would get one only between two polls, about
	// two per poll. The bound sits between, counted rather than timed.
	const measured = 20
	eventually(t, "20 polls have timed out", func() bool { return polls.Load() >= measured })
	t.Logf("the light service's probes ran %d times while %d polls timed out", fast.total.Load(), measured)
	if got := fast.total.Load(); got < 4*measured {
		t.Errorf("the light service's probes ran %d times while %d of the heavy service's polls timed out, want at least %d",
			got, measured, 4*measured)
	}
	if got := hanging.total.Load(); got > polls.Load()+1 {
		t.Errorf("%d polls reached the endpoint at once or before their turn; %d finished", got, polls.Load())
	}
}

// startProberOn starts a prober on an existing observer, stopped when the test ends.
func startProberOn(t *testing.T, obs *observer.Observer, maxRequests int) *Prober {
	p, _ := runProber(t, obs, maxRequests)
	return p
}

// runProber starts a prober on obs and throws its notifications away, as the routing
// controller would read them. stop ends it and waits for it; the test's end calls it too.
func runProber(tb testing.TB, obs *observer.Observer, maxRequests int) (p *Prober, stop func()) {
	p = NewProber(obs, maxRequests)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = p.Start(ctx); close(done) }()
	go discardAll(ctx, p.Events())
	var once sync.Once
	stop = func() { once.Do(func() { cancel(); <-done }) }
	tb.Cleanup(stop)
	return p, stop
}

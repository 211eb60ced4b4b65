package probing

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"k8s.io/apimachinery/pkg/types"

	"github.com/ome-routing/operator/pkg/observer"
	"github.com/ome-routing/operator/pkg/probe"
)

// resultSeries is the ome_routing_probe_results_total series of one service, by result.
func resultSeries(t *testing.T, key types.NamespacedName) map[string]float64 {
	t.Helper()
	ch := make(chan prometheus.Metric)
	go func() { probeResults.Collect(ch); close(ch) }()
	got := map[string]float64{}
	for m := range ch {
		var pb dto.Metric
		if err := m.Write(&pb); err != nil {
			t.Fatal(err)
		}
		labels := map[string]string{}
		for _, l := range pb.GetLabel() {
			labels[l.GetName()] = l.GetValue()
		}
		if labels["namespace"] == key.Namespace && labels["name"] == key.Name {
			got[labels["result"]] = pb.GetCounter().GetValue()
		}
	}
	return got
}

// TestProberResultSeriesGoWithTheMap: the prober keeps each map's result counters instead
// of looking them up per probe. Forgetting a map, or starting it over under another policy,
// still deletes its series, and the map probed again counts into a live series from 1, not
// into a counter kept from before.
func TestProberResultSeriesGoWithTheMap(t *testing.T) {
	key := types.NamespacedName{Namespace: "series", Name: "svc"}
	srv := newCountingServer(t)
	f := startFakeProber(t, 4)
	policy := testPolicy(10*time.Second, time.Second)
	targets := []ProbeTarget{{Cluster: "worker-a", Endpoint: srv.URL}}
	probeOnce := func(want int32) {
		t.Helper()
		f.stepTo(f.nextDue())
		eventually(t, "the home is probed", func() bool { return srv.total.Load() == want })
		eventually(t, "the probe is recorded", f.idle)
	}

	f.Sync(key, testUID, policy, probe.Digest(policy), targets)
	probeOnce(1)
	probeOnce(2)
	if got := resultSeries(t, key); len(got) != 1 || got["Passing"] != 2 {
		t.Fatalf("after two passing probes the series are %v, want Passing 2 only", got)
	}

	f.Forget(key)
	if got := resultSeries(t, key); len(got) != 0 {
		t.Fatalf("after Forget the series are %v, want none", got)
	}
	f.Sync(key, testUID, policy, probe.Digest(policy), targets)
	probeOnce(3)
	if got := resultSeries(t, key); len(got) != 1 || got["Passing"] != 1 {
		t.Fatalf("probed again after Forget, the series are %v, want Passing 1", got)
	}

	// Another policy starts the map over: its series go, and come back counted anew.
	other := testPolicy(20*time.Second, time.Second)
	srv.status.Store(503)
	// The home starts over and is sent at once: its answer waits until the series are read.
	srv.hold.Store(true)
	f.Sync(key, testUID, other, probe.Digest(other), targets)
	if got := resultSeries(t, key); len(got) != 0 {
		t.Fatalf("after a policy change the series are %v, want none until the next result", got)
	}
	srv.release <- struct{}{}
	srv.hold.Store(false)
	// That probe is the fourth; no step of the clock, which could send a fifth once the
	// fourth is recorded.
	eventually(t, "the held probe is answered", func() bool { return srv.total.Load() == 4 })
	eventually(t, "the probe is recorded", f.idle)
	if got := resultSeries(t, key); len(got) != 1 || got["Failing"] != 1 {
		t.Fatalf("after a policy change and one failing probe the series are %v, want Failing 1", got)
	}
	f.Forget(key)
}

// TestProberProbesWhereTheEndpointAndPathSay: each home's probe URL is made once; a new
// endpoint or a new path is probed at the new URL from its next probe.
func TestProberProbesWhereTheEndpointAndPathSay(t *testing.T) {
	srv := newCountingServer(t)
	f := startFakeProber(t, 4)
	policy := testPolicy(10*time.Second, time.Second)
	// A home that starts over (new, a new endpoint, a new policy) is probed at once; the
	// clock moves only for the next probe of a home that keeps its URL. Moving it for one
	// that starts over could make its second probe due the moment the first is recorded,
	// and that probe would reach the server before the next Sync.
	probeAt := func(p probe.Policy, endpoint string, want int32, step bool) {
		t.Helper()
		f.Sync(testKey, testUID, p, probe.Digest(p), []ProbeTarget{{Cluster: "worker-a", Endpoint: endpoint}})
		if step {
			f.stepTo(f.nextDue())
		}
		eventually(t, "the home is probed", func() bool { return srv.total.Load() == want })
		eventually(t, "the probe is recorded", f.idle)
	}
	probeAt(policy, srv.URL+"/a", 1, false)
	probeAt(policy, srv.URL+"/a", 2, true)
	probeAt(policy, srv.URL+"/b/", 3, false)
	health := policy
	health.Path = "/healthz"
	probeAt(health, srv.URL+"/b/", 4, false)
	want := []string{"GET /a/v1/models", "GET /a/v1/models", "GET /b/v1/models", "GET /b/healthz"}
	if got := srv.requests(); !slices.Equal(got, want) {
		t.Errorf("requests = %q, want %q", got, want)
	}
	f.Forget(testKey)
}

// TestProberCancelsARemovedHomesProbe: the probe in flight of a home that stops being
// probed is cancelled at once, rather than left to run out its timeout holding an observer
// slot (the engine's TestEngineCancelsARemovedHomesWork checks that no cancel is kept).
func TestProberCancelsARemovedHomesProbe(t *testing.T) {
	srv := newCountingServer(t)
	srv.hold.Store(true) // answers only when cancelled: the timeout below is far off
	f := startFakeProber(t, 4)
	policy := testPolicy(10*time.Second, time.Hour)
	f.Sync(testKey, testUID, policy, probe.Digest(policy), []ProbeTarget{{Cluster: "worker-a", Endpoint: srv.URL}})
	eventually(t, "the probe reaches the endpoint", func() bool { return srv.now.Load() == 1 })

	f.Sync(testKey, testUID, policy, probe.Digest(policy), nil)
	eventually(t, "the removed home's probe ends", f.idle)
	// The server's handler learns of the cancel a moment after the client gave up; without
	// a cancel it would hold the request for the probe's hour-long timeout.
	eventually(t, "the endpoint sees the removed home's probe cancelled", func() bool { return srv.now.Load() == 0 })
	if st, ok := f.state(testKey, "worker-a"); ok {
		t.Errorf("the removed home still has a state: %+v", st)
	}
}

// TestProberReusesABoundedSetOfGoroutines: probes go out from reused goroutines, never
// more of them than probes can be in flight at once (the dispatch cap and the probes
// allowed past it), however many rounds go by. It runs on the real clock with a short
// period: the goroutines' hand-offs are what it is about.
func TestProberReusesABoundedSetOfGoroutines(t *testing.T) {
	srv := newCountingServer(t)
	obs, err := observer.New(observer.Options{MaxConcurrentRequests: 64, MaxResponseBytes: 1024, AllowLoopback: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(obs.Close)
	p, stop := runProber(t, obs, 2)
	policy := testPolicy(20*time.Millisecond, time.Second)
	for m := range 12 {
		key := types.NamespacedName{Namespace: "ns", Name: fmt.Sprintf("svc-%d", m)}
		p.Sync(key, testUID, policy, probe.Digest(policy), []ProbeTarget{
			{Cluster: "worker-a", Endpoint: srv.URL}, {Cluster: "worker-b", Endpoint: srv.URL}})
	}
	eventually(t, "ten rounds of 24 probes are answered", func() bool { return srv.total.Load() >= 10*24 })
	// The cap of 2 and as many past it.
	const limit = 4
	if workers := p.engine.Stats().Workers; workers < 1 || workers > limit {
		t.Errorf("%d probing goroutines after ten rounds of 24 probes, want between 1 and %d", workers, limit)
	}
	stop()
	if workers := p.engine.Stats().Workers; workers != 0 {
		t.Errorf("%d probing goroutines left after Start returned, want none", workers)
	}
}

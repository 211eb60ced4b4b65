package probing

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/ome-routing/operator/pkg/probe"
)

// hangingServer never answers until the test ends, and counts requests in flight.
func hangingServer(t *testing.T) (*httptest.Server, *atomic.Int32) {
	var now atomic.Int32
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		now.Add(1)
		defer now.Add(-1)
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() { close(release); srv.Close() })
	return srv, &now
}

// A service whose every home hangs for a long timeout holds only its fair share of the
// slots: another service is probed on schedule meanwhile, not after the hanging probes
// time out.
func TestProberFairShareBetweenServices(t *testing.T) {
	hanging, hangingNow := hangingServer(t)
	healthy := newCountingServer(t)
	p := startProber(t, 4)

	greedy := types.NamespacedName{Namespace: "ns", Name: "greedy"}
	greedyPolicy := testPolicy(time.Hour, 59*time.Minute)
	var greedyHomes []ProbeTarget
	for i := range 8 {
		greedyHomes = append(greedyHomes, ProbeTarget{Cluster: fmt.Sprintf("worker-%d", i), Endpoint: hanging.URL})
	}
	normalPolicy := testPolicy(20*time.Millisecond, 10*time.Millisecond)
	normalHomes := []ProbeTarget{{Cluster: "worker-a", Endpoint: healthy.URL}, {Cluster: "worker-b", Endpoint: healthy.URL}}

	// New homes are probed at once: the normal service is known first, so that the greedy
	// one's share is already half the slots when its homes go.
	p.Sync(testKey, "", normalPolicy, probe.Digest(normalPolicy), normalHomes)
	p.Sync(greedy, "", greedyPolicy, probe.Digest(greedyPolicy), greedyHomes)
	eventually(t, "the greedy service holds its share", func() bool { return hangingNow.Load() == 2 })
	eventually(t, "the normal service is probed round after round", func() bool { return healthy.total.Load() >= 20 })
	if got := hangingNow.Load(); got != 2 {
		t.Errorf("the greedy service has %d probes in flight, want its share of 2 (4 slots, 2 services)", got)
	}
	if got := healthy.maxAtOnce.Load(); got > 2 {
		t.Errorf("the normal service had %d probes in flight at once, over its share of 2", got)
	}
}

// With more services than slots, every slot may be held by a hanging probe: a due home
// of a service with nothing in flight is still sent, and gets the next slot to free.
func TestProberPastTheCapOnePerIdleService(t *testing.T) {
	hanging, hangingNow := hangingServer(t)
	healthy := newCountingServer(t)
	p := startProber(t, 2)
	slowHang := testPolicy(time.Hour, 300*time.Millisecond)
	for i := range 2 {
		key := types.NamespacedName{Namespace: "ns", Name: fmt.Sprintf("greedy-%d", i)}
		p.Sync(key, "", slowHang, probe.Digest(slowHang), []ProbeTarget{{Cluster: "a", Endpoint: hanging.URL}, {Cluster: "b", Endpoint: hanging.URL}})
	}
	eventually(t, "the hanging services hold every slot", func() bool { return hangingNow.Load() == 2 })
	normalPolicy := testPolicy(time.Hour, 100*time.Millisecond)
	p.Sync(testKey, "", normalPolicy, probe.Digest(normalPolicy), []ProbeTarget{{Cluster: "a", Endpoint: healthy.URL}})
	eventually(t, "the normal service is probed once a hanging probe times out", func() bool { return healthy.total.Load() >= 1 })
	st := p.Sync(testKey, "", normalPolicy, probe.Digest(normalPolicy), []ProbeTarget{{Cluster: "a", Endpoint: healthy.URL}})["a"]
	eventually(t, "its result is recorded", func() bool {
		st = p.Sync(testKey, "", normalPolicy, probe.Digest(normalPolicy), []ProbeTarget{{Cluster: "a", Endpoint: healthy.URL}})["a"]
		return st.Probed
	})
	if st.Message != "HTTP 200" {
		t.Errorf("normal service's state = %+v, want Passing HTTP 200", st)
	}
}

// startProber starts a prober on the real clock with its own observer of maxRequests
// slots: fairness is about real requests holding real slots.
func startProber(t *testing.T, maxRequests int64) *Prober {
	return startProberOn(t, newTestObserver(t, maxRequests), int(maxRequests))
}

// Past the cap, idle maps send one probe each, but no more than the cap again in all: a
// fleet with far more maps than slots does not turn every due home into a request waiting
// in the observer.
func TestProberBoundsProbesPastTheCap(t *testing.T) {
	hanging, _ := hangingServer(t)
	p := startProber(t, 2)
	policy := testPolicy(time.Hour, 30*time.Second)
	for i := range 20 {
		key := types.NamespacedName{Namespace: "ns", Name: fmt.Sprintf("idle-%02d", i)}
		p.Sync(key, "", policy, probe.Digest(policy), []ProbeTarget{{Cluster: "a", Endpoint: hanging.URL}})
	}
	// counts is how many probes are in flight and how many due homes wait in the prober.
	counts := func() (running, waiting int) {
		st := p.engine.Stats()
		return st.Running, st.Held
	}
	// Every home is due: each is either sent or held, and the loop settles there.
	eventually(t, "every due home is sent or held", func() bool {
		running, waiting := counts()
		return running+waiting == 20
	})
	if running, waiting := counts(); running != 4 || waiting != 16 {
		t.Errorf("%d probes in flight and %d held on a cap of 2, want 4 in flight (2 past the cap) and 16 held", running, waiting)
	}
}

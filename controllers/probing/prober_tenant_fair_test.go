package probing

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
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/ome-routing/operator/pkg/probe"
	"github.com/ome-routing/operator/pkg/schedule"
)

// stallServer takes every request and answers none until the test ends it (as the
// observer's timeout would, with a dropped connection), noting when each arrived on the
// fake clock.
type stallServer struct {
	*httptest.Server
	clk      *clocktesting.FakeClock
	arrivals atomic.Int64

	mu      sync.Mutex
	stalled []stalledRequest
}

type stalledRequest struct {
	arrived time.Time
	end     chan struct{}
}

func newStallServer(t *testing.T, clk *clocktesting.FakeClock) *stallServer {
	s := &stallServer{clk: clk}
	done := make(chan struct{})
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req := stalledRequest{arrived: clk.Now(), end: make(chan struct{})}
		s.mu.Lock()
		s.stalled = append(s.stalled, req)
		s.mu.Unlock()
		s.arrivals.Add(1)
		select {
		case <-req.end:
		case <-done:
		case <-r.Context().Done():
		}
		panic(http.ErrAbortHandler) // no answer: the connection drops
	}))
	t.Cleanup(func() { close(done); s.Close() })
	return s
}

// endArrivedBy ends every stalled request that arrived at or before by.
func (s *stallServer) endArrivedBy(by time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	kept := s.stalled[:0]
	for _, req := range s.stalled {
		if req.arrived.After(by) {
			kept = append(kept, req)
			continue
		}
		close(req.end)
	}
	s.stalled = kept
}

// stalling counts the requests stalled now.
func (s *stallServer) stalling() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.stalled)
}

// A namespace of 200 services whose every probe hangs for just under its period, at the
// chart's 16 slots, does not starve a service in another namespace: every one of that
// service's probes starts within one period of its due time, round after round. The
// schedule runs on a fake clock, and the hanging probes end when the test says their
// timeout is up, so the figures are the engine's own due and start times, exactly.
func TestProberHangingNamespaceLeavesAnotherOnSchedule(t *testing.T) {
	const (
		slots    = 16
		hanging  = 200
		period   = time.Hour
		tick     = period / 20
		timeout  = period - tick // just under the period, as a tenant may set it
		rounds   = 8
		victimNS = "victim"
	)
	clk := clocktesting.NewFakeClock(epoch)
	obs := newTestObserver(t, slots)
	p := newProber(obs, slots, clk)
	var started atomic.Int64
	p.onStart = func(time.Duration) { started.Add(1) }
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = p.Start(ctx); close(done) }()
	go discardAll(ctx, p.Events())
	t.Cleanup(func() { cancel(); <-done })

	stall := newStallServer(t, clk)
	var mu sync.Mutex
	arrived := map[string][]time.Time{}
	var victimArrivals atomic.Int64
	victim := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		arrived[r.URL.Path] = append(arrived[r.URL.Path], clk.Now())
		mu.Unlock()
		victimArrivals.Add(1)
	}))
	t.Cleanup(victim.Close)

	victimKey := types.NamespacedName{Namespace: victimNS, Name: "svc"}
	victimPolicy := testPolicy(period, time.Minute)
	var victimHomes []ProbeTarget
	for i := range 3 {
		victimHomes = append(victimHomes, ProbeTarget{Cluster: fmt.Sprintf("worker-%d", i), Endpoint: fmt.Sprintf("%s/worker-%d", victim.URL, i)})
	}
	p.Sync(victimKey, "", victimPolicy, probe.Digest(victimPolicy), victimHomes)
	hangPolicy := testPolicy(period, timeout)
	for i := range hanging {
		key := types.NamespacedName{Namespace: "hostile", Name: fmt.Sprintf("hang-%03d", i)}
		p.Sync(key, "", hangPolicy, probe.Digest(hangPolicy), []ProbeTarget{{Cluster: "worker-a", Endpoint: stall.URL}})
	}

	// settle waits until nothing due is left in the queue and every dispatched probe
	// either stalls at the server or waits for a slot, with nothing moving meanwhile: the
	// schedule has done all it does at this instant.
	progress := func() int64 { return stall.arrivals.Load() + victimArrivals.Load() + started.Load() }
	settle := func() {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for {
			before := progress()
			next, queued := p.engine.NextDue()
			st := p.engine.Stats()
			stalling, waiting := stall.stalling(), obs.Waiting()
			if (!queued || next.After(clk.Now())) && stalling+waiting == st.Running && progress() == before {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("the schedule does not settle at +%s: %+v, %d stalling, %d waiting for a slot, next due +%s",
					clk.Now().Sub(epoch), st, stalling, waiting, next.Sub(epoch))
			}
			time.Sleep(time.Millisecond) // polling a condition, not synchronising on time
		}
	}
	end := epoch.Add(rounds * period)
	for now := epoch; now.Before(end); now = now.Add(tick) {
		clk.SetTime(now)
		settle()
		stall.endArrivedBy(now.Add(-timeout))
		settle()
	}
	if got := stall.stalling(); got < slots-1 {
		t.Fatalf("only %d hanging probes hold slots at the end, want the hanging namespace to hold all but the last", got)
	}

	mu.Lock()
	defer mu.Unlock()
	for _, h := range victimHomes {
		path := h.Endpoint[len(victim.URL):] + testProbePath
		times := arrived[path]
		due := epoch
		for j, at := range times {
			if late := at.Sub(due); late >= period {
				t.Errorf("%s: probe %d due at +%s started at +%s, %.1f periods late", h.Cluster, j+1,
					due.Sub(epoch), at.Sub(epoch), float64(late)/float64(period))
			}
			due = schedule.NextDue(due, at, victimKey.String(), period)
		}
		// The probe due next is not overdue by a period or more either.
		if late := end.Add(-tick).Sub(due); late >= period {
			t.Errorf("%s: %d probes in %d periods; the one due at +%s had not started by +%s",
				h.Cluster, len(times), rounds, due.Sub(epoch), end.Add(-tick).Sub(epoch))
		}
	}
}

package probing

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/ome-routing/operator/config/samples"
	"github.com/ome-routing/operator/internal/modelserver"
	"github.com/ome-routing/operator/internal/poll"
	"github.com/ome-routing/operator/pkg/loadbalance"
	"github.com/ome-routing/operator/pkg/observer"
	"github.com/ome-routing/operator/pkg/trafficsignal"
)

// fillQueue sends n traffic requests to e that hold its slots until the test ends.
func fillQueue(t *testing.T, e *modelserver.Endpoint, n int) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	for range n {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, e.URL()+modelserver.ProbePath, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set(modelserver.TrafficHeader, "1")
		go func() {
			if resp, err := http.DefaultClient.Do(req); err == nil {
				_ = resp.Body.Close()
			}
		}()
	}
}

// The load poller reads a real Prometheus that scrapes stand-in model servers in vLLM's
// names, with the shipped vLLM queries: a server with one slot and three requests shows 2
// waiting and a full cache, an idle one none, and a cluster without series is Unknown; each
// Known reading after the first carries the waiting requests of the one before.
func TestLoadPollerReadsTheShippedVLLMQueriesFromARealPrometheus(t *testing.T) {
	busy, err := modelserver.StartEndpoint(nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(busy.Close)
	idle, err := modelserver.StartEndpoint(nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(idle.Close)
	busy.SetQueue(modelserver.Queue{Slots: 1, ServiceTime: time.Hour})
	idle.SetQueue(modelserver.Queue{Slots: 1, ServiceTime: time.Hour})
	fillQueue(t, busy, 3)
	if err := poll.Until(context.Background(), 10*time.Millisecond, 10*time.Second, func(context.Context) error {
		if w, r := busy.QueueState(); w != 2 || r != 1 {
			return fmt.Errorf("%d waiting, %d running", w, r)
		}
		return nil
	}); err != nil {
		t.Fatalf("the busy server's queue did not fill: %v", err)
	}

	// Each server stands for one cluster: the scrape labels the queries select on.
	host := func(e *modelserver.Endpoint) string { return strings.TrimPrefix(e.URL(), "http://") }
	prom := startPrometheusLabelled(t, map[string]map[string]string{
		host(busy): {"cluster": "busy", "namespace": "team", "ome_io_inferenceservice": "llm"},
		host(idle): {"cluster": "idle", "namespace": "team", "ome_io_inferenceservice": "llm"},
	})
	waiting, cacheUse, err := samples.VLLMLoadQueries()
	if err != nil {
		t.Fatal(err)
	}
	settings, errs := trafficsignal.Validate(trafficsignal.Spec{
		URL: &prom.URL, Timeout: new(500 * time.Millisecond), Interval: new(time.Second), Window: new(2 * time.Second),
		Requests: new(`vector(0)`), Failures: new(`vector(0)`), Waiting: &waiting, CacheUse: &cacheUse,
	}, trafficsignal.Path, time.Second)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	obs, err := observer.New(observer.Options{MaxConcurrentRequests: 4, MaxResponseBytes: 1 << 16})
	if err != nil {
		t.Fatal(err)
	}
	p := NewLoadPoller(obs, settings, 4)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go func() { _ = p.Start(ctx) }()

	key := types.NamespacedName{Namespace: "team", Name: "llm"}
	policy := loadbalance.Policy{Mode: "Enforce", WaitingPerReplica: 1, CacheUsePercent: 80}
	targets := []SignalTarget{{Cluster: "busy", Namespace: "team", Service: "llm"}, {Cluster: "idle", Namespace: "team", Service: "llm"},
		{Cluster: "none", Namespace: "team", Service: "llm"}}
	deadline := time.After(30 * time.Second)
	for {
		got := p.Sync(key, &policy, targets)
		b, i, none := got["busy"], got["idle"], got["none"]
		// avg_over_time needs the window to hold only scrapes of the full queue.
		if b.Known && i.Known && none.Reason != NotReadYet && *b.CacheUse == 1 {
			if *b.Waiting != 2 || *i.Waiting != 0 || *i.CacheUse != 0 {
				t.Fatalf("busy %v waiting / %v cache, idle %v / %v: want 2 / 1 and 0 / 0", *b.Waiting, *b.CacheUse, *i.Waiting, *i.CacheUse)
			}
			if none.Known || !strings.HasPrefix(none.Reason, "waiting: the query gave no sample") {
				t.Fatalf("a cluster without series: %+v", none)
			}
			// A reading that follows a Known one carries its waiting requests, so that the
			// decision can tell a burst from a queue that stays; an Unknown one carries none.
			if b.Before != nil && i.Before != nil {
				if *b.Before != 2 || *i.Before != 0 || none.Before != nil {
					t.Fatalf("the readings before: busy %v, idle %v, none %v; want 2, 0 and none", *b.Before, *i.Before, none.Before)
				}
				return
			}
		}
		select {
		case <-p.Events():
		case <-deadline:
			t.Fatalf("no readings after 30s: %+v", got)
		}
	}
}

// Without load queries every reading says so.
func TestLoadPollerWithoutLoadQueries(t *testing.T) {
	settings, errs := trafficsignal.Validate(trafficsignal.Spec{URL: new("http://127.0.0.1:9"),
		Requests: new(`vector(0)`), Failures: new(`vector(0)`)}, trafficsignal.Path, time.Second)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	p := NewLoadPoller(nil, settings, 4)
	r := p.Sync(types.NamespacedName{Namespace: "a", Name: "b"}, &loadbalance.Policy{}, []SignalTarget{{Cluster: "c"}})["c"]
	if r.Known || r.Reason != errNoLoadQueries.Error() {
		t.Fatalf("got %+v", r)
	}
	var none *LoadPoller
	if r := none.Sync(types.NamespacedName{}, nil, []SignalTarget{{Cluster: "c"}})["c"]; r.Known || !strings.Contains(r.Reason, "routing.trafficSignal is not set") {
		t.Fatalf("a nil poller: %+v", r)
	}
}

package probing

import (
	"context"
	"maps"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"k8s.io/apimachinery/pkg/types"

	"github.com/ome-routing/operator/internal/haproxyingress"
	"github.com/ome-routing/operator/internal/promserver"
	"github.com/ome-routing/operator/pkg/observer"
	"github.com/ome-routing/operator/pkg/passivegate"
	"github.com/ome-routing/operator/pkg/trafficsignal"
)

// gatewayCounters serves a gateway's request counters on loopback, for a real Prometheus
// to scrape.
func gatewayCounters(t *testing.T) (*prometheus.CounterVec, string) {
	t.Helper()
	reg := prometheus.NewRegistry()
	requests := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "gateway_requests_total", Help: "requests"}, []string{"cluster", "code"})
	reg.MustRegister(requests)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: promhttp.HandlerFor(reg, promhttp.HandlerOpts{}), ReadHeaderTimeout: time.Second}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return requests, ln.Addr().String()
}

func startPrometheus(t *testing.T, target string) *promserver.Server {
	t.Helper()
	return startPrometheusLabelled(t, map[string]map[string]string{target: nil})
}

// startPrometheusLabelled scrapes each target with its labels.
func startPrometheusLabelled(t *testing.T, targets map[string]map[string]string) *promserver.Server {
	t.Helper()
	if err := promserver.Missing(); err != nil {
		if os.Getenv(haproxyingress.RequireDataPlaneEnv) != "" {
			t.Fatalf("%s is set but Prometheus cannot run: %v", haproxyingress.RequireDataPlaneEnv, err)
		}
		t.Skip(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	p, err := promserver.Start(ctx, promserver.Options{Targets: slices.Sorted(maps.Keys(targets)), Labels: targets, ScrapeInterval: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Stop() })
	return p
}

// The poller reads each home's requests and failures from a real Prometheus through the
// observer (whose guard refuses loopback for members, not for the installer's query API),
// announces the map when a reading turns Known, and reads a home without series as
// Unknown.
func TestSignalPollerReadsARealPrometheus(t *testing.T) {
	counters, target := gatewayCounters(t)
	for _, c := range []string{"a", "b"} {
		counters.WithLabelValues(c, "2xx")
		counters.WithLabelValues(c, "5xx")
	}
	prom := startPrometheus(t, target)
	settings, errs := trafficsignal.Validate(trafficsignal.Spec{
		URL:      &prom.URL,
		Timeout:  new(500 * time.Millisecond),
		Interval: new(time.Second),
		Window:   new(10 * time.Second),
		Requests: new(`sum(increase(gateway_requests_total{cluster="{{.Cluster}}"}[{{.Window}}]))`),
		Failures: new(`sum(increase(gateway_requests_total{cluster="{{.Cluster}}",code="5xx"}[{{.Window}}]))`),
	}, trafficsignal.Path, time.Second)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	obs, err := observer.New(observer.Options{MaxConcurrentRequests: 4, MaxResponseBytes: 1 << 16})
	if err != nil {
		t.Fatal(err)
	}
	p := NewSignalPoller(obs, settings, 4)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	started := time.Now()
	go func() { _ = p.Start(ctx) }()

	// Counts rise over a few scrapes, so that increase() sees them within the window.
	for range 5 {
		counters.WithLabelValues("a", "2xx").Add(14)
		counters.WithLabelValues("a", "5xx").Add(6)
		counters.WithLabelValues("b", "2xx").Add(20)
		time.Sleep(250 * time.Millisecond) //nolint:forbidigo // paces the counters across scrapes; not a sync
	}
	key := types.NamespacedName{Namespace: "team", Name: "llm"}
	policy := passivegate.Policy{FailurePercent: 20, MinRequests: 20}
	targets := []SignalTarget{{Cluster: "a"}, {Cluster: "b"}, {Cluster: "none"}}
	for _, tg := range targets {
		if r := p.Sync(key, &policy, targets)[tg.Cluster]; r.Known || r.Reason != NotReadYet {
			t.Fatalf("%s before its first reading: %+v", tg.Cluster, r)
		}
	}
	deadline := time.After(30 * time.Second)
	for {
		got := p.Sync(key, &policy, targets)
		a, b, none := got["a"], got["b"], got["none"]
		if a.Known && b.Known && none.Reason != NotReadYet && a.Requests > 0 && b.Requests > 0 {
			if !policy.Fails(a) || policy.Fails(b) {
				t.Fatalf("a fails 30%% and b none: got a %+v, b %+v", a, b)
			}
			if share := a.Failures / a.Requests; share < 0.25 || share > 0.35 {
				t.Fatalf("a's failed share is %.2f, want 0.30: %+v", share, a)
			}
			if a.At.IsZero() || a.At.After(time.Now()) || a.At.Before(started) {
				t.Fatalf("a reading is asked for after the poller starts, and before now: at %s, started %s", a.At, started)
			}
			if none.Known || !strings.Contains(none.Reason, "the query gave no sample") {
				t.Fatalf("a cluster without series: %+v", none)
			}
			return
		}
		select {
		case <-p.Events():
		case <-deadline:
			t.Fatalf("no readings after 30s: %+v", got)
		}
	}
}

// Without a signal source every reading says so, and nothing is sent.
func TestSignalPollerWithoutSource(t *testing.T) {
	var p *SignalPoller
	r := p.Sync(types.NamespacedName{Name: "x"}, nil, []SignalTarget{{Cluster: "a"}})["a"]
	if r.Known || r.Reason != "routing.trafficSignal is not set: there is no traffic signal to read" {
		t.Fatalf("got %+v", r)
	}
}

// A home whose names a valid template cannot be filled with (here, no backend for index)
// reads Unknown with why, and is not read.
func TestSignalPollerUnrenderableHome(t *testing.T) {
	settings, errs := trafficsignal.Validate(trafficsignal.Spec{
		URL:      new("http://127.0.0.1:9"),
		Requests: new(`sum(r{b="{{index .Backends 0}}"})`),
		Failures: new(`sum(f{b="{{index .Backends 0}}"})`),
	}, trafficsignal.Path, time.Second)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	p := NewSignalPoller(nil, settings, 4)
	r := p.Sync(types.NamespacedName{Namespace: "team", Name: "llm"}, &passivegate.Policy{FailurePercent: 10, MinRequests: 1},
		[]SignalTarget{{Cluster: "a"}})["a"]
	if r.Known || !strings.HasPrefix(r.Reason, "the queries do not render: ") {
		t.Fatalf("got %+v", r)
	}
}

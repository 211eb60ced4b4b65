package observer

import (
	"net/http"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

func TestMetrics(t *testing.T) {
	release := releaseOnCleanup(t)
	started := make(chan struct{}, 1)
	srv, _ := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/hold" {
			started <- struct{}{}
			hang(r, release)
		}
	}))

	m := NewMetrics()
	reg := prometheus.NewPedanticRegistry()
	if err := m.Register(reg); err != nil {
		t.Fatalf("Register: %v", err)
	}
	if err := m.Register(reg); err == nil {
		t.Fatal("registering the same metrics twice succeeded")
	}
	problems, err := testutil.GatherAndLint(reg)
	if err != nil || len(problems) != 0 {
		t.Fatalf("lint: %v %+v", err, problems)
	}

	o := newObserver(t, func(opts *Options) { opts.Metrics = m })

	// While a request holds its slot, the gauge shows it.
	held := make(chan Result, 1)
	go func() { held <- o.Do(t.Context(), Request{URL: srv.URL + "/hold", Timeout: shortTimeout}) }()
	<-started
	if got := testutil.ToFloat64(m.inFlight); got != 1 {
		t.Fatalf("requests_in_flight = %v while one request runs, want 1", got)
	}
	want(t, <-held, OutcomeTransportError, 0, "context deadline exceeded")

	want(t, o.Do(t.Context(), Request{URL: srv.URL, Timeout: longTimeout}), OutcomeResponse, 200)
	want(t, o.Do(t.Context(), Request{URL: srv.URL, Timeout: longTimeout}), OutcomeResponse, 200)
	// Refused before a slot: counted, but neither waited nor ran.
	want(t, o.Do(t.Context(), Request{URL: "ftp://example.test/", Timeout: longTimeout}), OutcomeTransportError, 0)

	const wantCounts = `
# HELP ome_routing_observer_requests_total Requests handed to the observer, by outcome (Response, TransportError, BodyError, Cancelled).
# TYPE ome_routing_observer_requests_total counter
ome_routing_observer_requests_total{outcome="BodyError"} 0
ome_routing_observer_requests_total{outcome="Cancelled"} 0
ome_routing_observer_requests_total{outcome="Response"} 2
ome_routing_observer_requests_total{outcome="TransportError"} 2
# HELP ome_routing_observer_requests_in_flight Requests holding an observer slot right now.
# TYPE ome_routing_observer_requests_in_flight gauge
ome_routing_observer_requests_in_flight 0
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(wantCounts),
		"ome_routing_observer_requests_total", "ome_routing_observer_requests_in_flight"); err != nil {
		t.Fatal(err)
	}

	for name, wantCount := range map[string]uint64{
		"ome_routing_observer_request_duration_seconds": 3,
		"ome_routing_observer_slot_wait_seconds":        3,
	} {
		if got := histogramCount(t, reg, name); got != wantCount {
			t.Errorf("%s has %d samples, want %d", name, got, wantCount)
		}
	}
}

func histogramCount(t *testing.T, reg *prometheus.Registry, name string) uint64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() == name {
			return f.GetMetric()[0].GetHistogram().GetSampleCount()
		}
	}
	t.Fatalf("%s not gathered", name)
	return 0
}

// A nil *Metrics is valid and measures nothing.
func TestNilMetrics(t *testing.T) {
	srv, _ := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	o := newObserver(t, func(opts *Options) { opts.Metrics = nil })
	want(t, o.Do(t.Context(), Request{URL: srv.URL, Timeout: longTimeout}), OutcomeResponse, 200)
}

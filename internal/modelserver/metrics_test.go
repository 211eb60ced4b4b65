package modelserver

import (
	"context"
	"net/http"
	"slices"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// MetricsPath shows the queue in vLLM's names, labelled with the model: the waiting and
// running gauges as QueueState reads them, the share of slots held as cache usage, and a
// queue-time observation per request that got a slot. Scrapes are not counted as
// requests.
func TestMetricsShowTheQueueInVLLMNames(t *testing.T) {
	e := startEndpoint(t)
	e.SetQueue(Queue{Slots: 2, ServiceTime: serviceTime, PerToken: time.Millisecond})
	expectQueueMetrics(t, e, 0)

	// A request is observed when it gets its slot.
	unblockFirst, _ := startBlocker(t, e)
	if usage := expectQueueMetrics(t, e, 1); usage != 0.5 {
		t.Fatalf("%s with one of two slots held: %v, want 0.5", MetricCacheUsage, usage)
	}

	unblockSecond, _ := startBlocker(t, e)
	var answers [3]<-chan trafficAnswer
	for i := range answers {
		answers[i] = sendTraffic(context.Background(), e, nil)
		waitForQueue(t, e, i+1, 2)
	}
	if usage := expectQueueMetrics(t, e, 2); usage != 1 {
		t.Fatalf("%s with every slot held: %v, want 1", MetricCacheUsage, usage)
	}

	unblockFirst()
	unblockSecond()
	for i, ch := range answers {
		if a := <-ch; a.status != http.StatusOK {
			t.Fatalf("waiter %d: %+v", i, a)
		}
	}
	// Both blockers and the three waiters got a slot.
	expectQueueMetrics(t, e, 5)

	if e.Requests() != 5 || slices.Contains(e.Seen(), "GET "+MetricsPath) {
		t.Fatalf("scrapes were counted: %d requests, seen %v", e.Requests(), e.Seen())
	}
}

// A scrape is answered whatever the endpoint answers its probe with.
func TestMetricsAreAnsweredInEveryServingMode(t *testing.T) {
	e := startEndpoint(t)
	for _, mode := range []Mode{Unavailable, NotFound, BadGateway, Redirect} {
		if err := e.Set(mode); err != nil {
			t.Fatal(err)
		}
		fams := scrape(t, e)
		if _, ok := fams[MetricRequestsWaiting]; !ok {
			t.Fatalf("in mode %s the scrape has no %s", mode, MetricRequestsWaiting)
		}
	}
}

// expectQueueMetrics scrapes e, checks that its gauges agree with QueueState and that its
// queue-time histogram has observed requests, and gives the cache-usage gauge. The queue
// must be still while it runs.
func expectQueueMetrics(t *testing.T, e *Endpoint, observed uint64) float64 {
	t.Helper()
	fams := scrape(t, e)
	waiting, running := e.QueueState()
	if got := gauge(t, fams, MetricRequestsWaiting); got != float64(waiting) {
		t.Fatalf("%s = %v, QueueState says %d", MetricRequestsWaiting, got, waiting)
	}
	if got := gauge(t, fams, MetricRequestsRunning); got != float64(running) {
		t.Fatalf("%s = %v, QueueState says %d", MetricRequestsRunning, got, running)
	}
	h := only(t, fams, MetricQueueTime, dto.MetricType_HISTOGRAM).GetHistogram()
	if h.GetSampleCount() != observed {
		t.Fatalf("%s has %d observations, want %d", MetricQueueTime, h.GetSampleCount(), observed)
	}
	return gauge(t, fams, MetricCacheUsage)
}

// scrape reads e's metrics as Prometheus does, names checked by Prometheus's classic rules
// (which allow vLLM's ':').
func scrape(t *testing.T, e *Endpoint) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get(e.URL() + MetricsPath)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("the scrape answered %d", resp.StatusCode)
	}
	parser := expfmt.NewTextParser(model.LegacyValidation)
	fams, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return fams
}

func gauge(t *testing.T, fams map[string]*dto.MetricFamily, name string) float64 {
	t.Helper()
	return only(t, fams, name, dto.MetricType_GAUGE).GetGauge().GetValue()
}

// only is the one series of the family name, of type typ, labelled with the model.
func only(t *testing.T, fams map[string]*dto.MetricFamily, name string, typ dto.MetricType) *dto.Metric {
	t.Helper()
	fam, ok := fams[name]
	if !ok || fam.GetType() != typ || len(fam.GetMetric()) != 1 {
		t.Fatalf("%s: want one %s series, got %v", name, typ, fam)
	}
	m := fam.GetMetric()[0]
	labels := m.GetLabel()
	if len(labels) != 1 || labels[0].GetName() != "model_name" || labels[0].GetValue() != ModelID {
		t.Fatalf("%s is labelled %v, want model_name=%q", name, labels, ModelID)
	}
	return m
}

// BreakMetrics fails scrapes only: the probe path still answers, and the scrapes come back
// once it is undone.
func TestBreakMetricsFailsScrapesOnly(t *testing.T) {
	e := startEndpoint(t)
	e.BreakMetrics(http.StatusInternalServerError)
	for path, want := range map[string]int{MetricsPath: http.StatusInternalServerError, ProbePath: http.StatusOK} {
		resp, err := http.Get(e.URL() + path)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != want {
			t.Fatalf("%s answered %d, want %d", path, resp.StatusCode, want)
		}
	}
	e.BreakMetrics(0)
	if fams := scrape(t, e); fams[MetricRequestsWaiting] == nil {
		t.Fatal("the scrape is not back")
	}
}

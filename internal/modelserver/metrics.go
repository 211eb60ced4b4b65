package modelserver

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// MetricsPath is where an Endpoint answers Prometheus scrapes, as vLLM does.
const MetricsPath = "/metrics"

// ModelID is the model an Endpoint serves: the id in its model list on ProbePath, and the
// model_name label of its metrics.
const ModelID = "qwen3-0-6b"

// The metrics an Endpoint exposes on MetricsPath, in vLLM's names and with vLLM's
// model_name label, so that a query written for vLLM reads a stand-in as it is.
const (
	// MetricRequestsWaiting is a gauge: the requests waiting for a slot now.
	MetricRequestsWaiting = "vllm:num_requests_waiting"
	// MetricRequestsRunning is a gauge: the requests holding a slot now.
	MetricRequestsRunning = "vllm:num_requests_running"
	// MetricCacheUsage is a gauge from 0 to 1, the KV cache in use. A stand-in has no
	// cache: it reports the share of its slots held (running / Slots, at most 1), and 0
	// while its queue is off.
	MetricCacheUsage = "vllm:gpu_cache_usage_perc"
	// MetricQueueTime is a histogram: each queued request's time waiting for a slot.
	MetricQueueTime = "vllm:request_queue_time_seconds"
)

// queueTimeBuckets are the bounds of MetricQueueTime, in seconds. They start finer than
// vLLM's own, since a stand-in's requests wait milliseconds where a model server's wait
// seconds; a quantile query reads either.
var queueTimeBuckets = []float64{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60}

// endpointMetrics are one Endpoint's metrics, on a registry of its own, so that each
// stand-in exposes only its own queue, and starting many endpoints in one test process
// registers nothing twice.
type endpointMetrics struct {
	queueTime prometheus.Histogram
	handler   http.Handler
}

func newEndpointMetrics(s *slots) *endpointMetrics {
	labels := prometheus.Labels{"model_name": ModelID}
	queueTime := prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:        MetricQueueTime,
		Help:        "Time a request waited for a slot, in seconds.",
		ConstLabels: labels,
		Buckets:     queueTimeBuckets,
	})
	gauges := queueGauges{
		slots:      s,
		waiting:    prometheus.NewDesc(MetricRequestsWaiting, "Requests waiting for a slot.", nil, labels),
		running:    prometheus.NewDesc(MetricRequestsRunning, "Requests holding a slot.", nil, labels),
		cacheUsage: prometheus.NewDesc(MetricCacheUsage, "Share of the slots held (the stand-in's KV-cache usage), 0 to 1.", nil, labels),
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(queueTime, gauges)
	return &endpointMetrics{queueTime: queueTime, handler: promhttp.HandlerFor(reg, promhttp.HandlerOpts{})}
}

// queueGauges read the queue's gauges from one snapshot of its slots at scrape time, so
// that waiting, running and cache usage in one scrape agree with each other.
type queueGauges struct {
	slots                        *slots
	waiting, running, cacheUsage *prometheus.Desc
}

// Describe sends the gauges' descriptions.
func (g queueGauges) Describe(ch chan<- *prometheus.Desc) {
	ch <- g.waiting
	ch <- g.running
	ch <- g.cacheUsage
}

// Collect sends the gauges' values now.
func (g queueGauges) Collect(ch chan<- prometheus.Metric) {
	waiting, running, limit := g.slots.state()
	usage := 0.0
	if limit > 0 {
		// Lowering Slots leaves more running than the limit until they are done.
		usage = min(float64(running)/float64(limit), 1)
	}
	ch <- prometheus.MustNewConstMetric(g.waiting, prometheus.GaugeValue, float64(waiting))
	ch <- prometheus.MustNewConstMetric(g.running, prometheus.GaugeValue, float64(running))
	ch <- prometheus.MustNewConstMetric(g.cacheUsage, prometheus.GaugeValue, usage)
}

// serveMetrics answers a scrape. A scrape is not counted as a request (Requests, Seen,
// InFlight, OnAnswer), so that a Prometheus scraping a server changes nothing a test counts
// of its probes and traffic; nor is it delayed by SetDelay. It is answered in every mode
// but Refuse, whose socket is closed, and Hang, where it hangs as every request does.
func (e *Endpoint) serveMetrics(w http.ResponseWriter, r *http.Request) {
	e.mu.Lock()
	mode, release, broken := e.mode, e.release, e.metricsStatus
	e.mu.Unlock()
	if broken != 0 {
		http.Error(w, http.StatusText(broken), broken)
		return
	}
	if mode == Hang {
		select {
		case <-release:
		case <-r.Context().Done():
			return
		}
	}
	if e.name != "" {
		w.Header().Set(ServedByHeader, e.name)
	}
	e.metrics.handler.ServeHTTP(w, r)
}

// BreakMetrics makes every scrape of the endpoint get status (0 answers them again), as a
// model server whose metrics fail while it serves: its probes and traffic are unchanged.
func (e *Endpoint) BreakMetrics(status int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.metricsStatus = status
}

package probing

// This file owns the prober's own metrics: its results counter, the probes' lateness and
// the wait of a gate or a lift for the reconciler. The per-map gauges (gated, would-gate,
// refused, unobserved homes, refused settings, capacity fallback) are the routing
// reconciler's: it alone sets and deletes them, so a map the prober stops probing (a
// refused setting freezes it, gates and all) keeps them.

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/types"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

var (
	probeResults = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "ome_routing_probe_results_total",
		Help: "Counted routing probe results by service and result (Passing, Failing, Unknown).",
	}, []string{"namespace", "name", "result"})

	probeLateness = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "ome_routing_probe_lateness_seconds",
		Help:    "How long after its due time a probe's request started, including the wait for an observer slot.",
		Buckets: prometheus.ExponentialBuckets(0.001, 4, 10),
	})

	signalReads = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "ome_routing_traffic_signal_reads_total",
		Help: "Traffic-signal readings (a home's requests and failures queries) by result: Known, or Unknown when an answer could not be used.",
	}, []string{"result"})

	loadReads = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "ome_routing_load_reads_total",
		Help: "Load readings (a home's model servers' waiting requests and cache use) by result: Known, or Unknown when an answer could not be used.",
	}, []string{"result"})

	transitionWait = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name: "ome_routing_transition_wait_seconds",
		Help: "How long a probe result that gated or lifted a home waited for the routing reconciler to read it, queue included.",
		// 5ms to about 20s.
		Buckets: prometheus.ExponentialBuckets(0.005, 2, 13),
	})
)

// Collectors are the prober's metrics, for the manager to register beside routing's.
func Collectors() []prometheus.Collector {
	return []prometheus.Collector{probeResults, probeLateness, transitionWait, signalReads, loadReads}
}

// probeResultCounters are one map's ome_routing_probe_results_total series, each looked up
// the first time its result is counted (so that a result that never happened exports no
// series), then kept: a label lookup hashes and locks on every probe, a kept counter is
// one atomic add. The map's series are deleted by forgetProbeMetrics when the prober drops
// the map, together with the mapProbes that keeps them, so a kept counter is never counted
// into after its series is gone.
//
// Only Passing and Failing are kept, the results of an endpoint's own answers; Unknown,
// the operator's own trouble, is rare and looked up each time, which saves 16 bytes a map.
type probeResultCounters struct {
	passing, failing prometheus.Counter
}

// count adds one counted result of the map key.
func (c *probeResultCounters) count(key types.NamespacedName, result omev1beta1.ProbeResult) {
	var slot *prometheus.Counter
	switch result {
	case omev1beta1.ProbePassing:
		slot = &c.passing
	case omev1beta1.ProbeFailing:
		slot = &c.failing
	default:
		probeResults.WithLabelValues(key.Namespace, key.Name, string(result)).Inc()
		return
	}
	if *slot == nil {
		*slot = probeResults.WithLabelValues(key.Namespace, key.Name, string(result))
	}
	(*slot).Inc()
}

func observeLateness(d time.Duration) {
	probeLateness.Observe(d.Seconds())
}

func countSignalRead(known bool) { signalReads.WithLabelValues(readResult(known)).Inc() }

func countLoadRead(known bool) { loadReads.WithLabelValues(readResult(known)).Inc() }

func readResult(known bool) string {
	if known {
		return "Known"
	}
	return "Unknown"
}

func observeTransitionWait(d time.Duration) {
	transitionWait.Observe(d.Seconds())
}

// forgetProbeMetrics deletes the one series the prober keeps per map, its results counter,
// when it stops probing the map. It never touches the reconciler's gauges.
func forgetProbeMetrics(key types.NamespacedName) {
	probeResults.DeletePartialMatch(prometheus.Labels{"namespace": key.Namespace, "name": key.Name})
}

package routing

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/types"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

// Routing metrics, registered into controller-runtime's registry by the manager (see
// Collectors). A
// service's series are deleted when it stops being probed.
var (
	probeResults = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "ome_routing_probe_results_total",
		Help: "Counted routing probe results by service and result (Passing, Failing, Unknown).",
	}, []string{"namespace", "name", "result"})

	gatedHomes = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "ome_routing_gated_homes",
		Help: "Homes of a service that the routing probe gates now.",
	}, []string{"namespace", "name"})

	refusedHomes = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "ome_routing_refused_homes",
		Help: "Homes of a service that the operator itself refuses (network guard, endpoint form, allowedEndpointDomains) and gives weight 0.",
	}, []string{"namespace", "name"})

	unobservedHomes = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "ome_routing_unobserved_homes",
		Help: "Homes of a service on members the manager cannot read, kept at their last known endpoint and capacity while their probe decides.",
	}, []string{"namespace", "name"})

	shadowGatedHomes = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "ome_routing_shadow_gated_homes",
		Help: "Homes of a service whose Shadow probe would gate them now; only while the probe is in Shadow mode.",
	}, []string{"namespace", "name"})

	settingsRefused = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "ome_routing_settings_refused",
		Help: "1 while the manager refuses a service's routing settings and its TrafficMap is frozen as last written, 0 otherwise.",
	}, []string{"namespace", "name"})

	capacityFallbackHomes = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "ome_trafficmap_capacity_fallback_homes",
		Help: "Number of homes currently using control-plane allocation because configured endpoint capacity did not produce a usable ceiling.",
	}, []string{"namespace", "trafficmap"})

	probeLateness = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "ome_routing_probe_lateness_seconds",
		Help:    "How long after its due time a probe's request started, including the wait for an observer slot.",
		Buckets: prometheus.ExponentialBuckets(0.001, 4, 10),
	})

	transitionWait = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name: "ome_routing_transition_wait_seconds",
		Help: "How long a probe result that gated or lifted a home waited for the routing reconciler to read it, queue included.",
		// 5ms to about 20s.
		Buckets: prometheus.ExponentialBuckets(0.005, 2, 13),
	})
)

// Collectors are the routing metrics, for the manager to register.
func Collectors() []prometheus.Collector {
	return []prometheus.Collector{probeResults, gatedHomes, shadowGatedHomes, refusedHomes, unobservedHomes, settingsRefused, probeLateness, transitionWait, capacityFallbackHomes}
}

// probeResultCounters are one map's ome_routing_probe_results_total series, each looked up
// the first time its result is counted (so that a result that never happened exports no
// series, as before), then kept: a label lookup hashes and locks on every probe, a kept
// counter is one atomic add. The map's series are deleted by forgetProbeMetrics when the
// prober drops the map, together with the mapProbes that keeps them, so a kept counter is
// never counted into after its series is gone.
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

func observeTransitionWait(d time.Duration) {
	transitionWait.Observe(d.Seconds())
}

func setGatedHomes(key types.NamespacedName, n int) {
	gatedHomes.WithLabelValues(key.Namespace, key.Name).Set(float64(n))
}

// setShadowGatedHomes records the homes a Shadow probe would gate; a service whose probe is
// not in Shadow mode has no series.
func setShadowGatedHomes(key types.NamespacedName, shadow bool, n int) {
	if !shadow {
		shadowGatedHomes.DeleteLabelValues(key.Namespace, key.Name)
		return
	}
	shadowGatedHomes.WithLabelValues(key.Namespace, key.Name).Set(float64(n))
}

// forgetProbeMetrics deletes the series the prober owns for a map it no longer probes: its
// results counter. The map's gauges are the reconciler's (forgetMapGauges): a map frozen by
// a refused setting is no longer probed but keeps its gates, so they stay visible.
func forgetProbeMetrics(key types.NamespacedName) {
	probeResults.DeletePartialMatch(prometheus.Labels{"namespace": key.Namespace, "name": key.Name})
}

// setRefusedHomes records how many of a map's homes the operator refuses. The series goes
// with the map (forgetMapGauges).
func setRefusedHomes(key types.NamespacedName, n int) {
	refusedHomes.WithLabelValues(key.Namespace, key.Name).Set(float64(n))
}

// forgetMapGauges deletes the gauges the reconciler sets for a map (setMapGauges), once the
// service is gone or no longer routed: the reconciler is their one writer, and the only one
// that deletes them.
func forgetMapGauges(key types.NamespacedName) {
	gatedHomes.DeleteLabelValues(key.Namespace, key.Name)
	shadowGatedHomes.DeleteLabelValues(key.Namespace, key.Name)
	refusedHomes.DeleteLabelValues(key.Namespace, key.Name)
	unobservedHomes.DeleteLabelValues(key.Namespace, key.Name)
	settingsRefused.DeleteLabelValues(key.Namespace, key.Name)
}

// setSettingsRefused records whether the service's routing settings are refused. Every
// service the reconciler routes has the series; it goes with the map (forgetMapGauges).
func setSettingsRefused(key types.NamespacedName, refused bool) {
	v := 0.0
	if refused {
		v = 1
	}
	settingsRefused.WithLabelValues(key.Namespace, key.Name).Set(v)
}

// setUnobservedHomes records how many of a map's homes are on members the manager cannot
// read. Every map has the series, 0 when all are observed; it goes with the map, as the
// refused homes' does (forgetMapGauges).
func setUnobservedHomes(key types.NamespacedName, n int) {
	unobservedHomes.WithLabelValues(key.Namespace, key.Name).Set(float64(n))
}

// setCapacityFallbackHomes records a polled map's homes without a ceiling.
func setCapacityFallbackHomes(key types.NamespacedName, n int) {
	capacityFallbackHomes.WithLabelValues(key.Namespace, key.Name).Set(float64(n))
}

// forgetCapacityMetrics deletes a map's series when it is no longer polled.
func forgetCapacityMetrics(key types.NamespacedName) {
	capacityFallbackHomes.DeletePartialMatch(prometheus.Labels{"namespace": key.Namespace, "trafficmap": key.Name})
}

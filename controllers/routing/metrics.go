package routing

// This file owns the per-map gauges. The reconciler is their one writer: it sets them after
// each written spec (setMapGauges) and deletes them in one place, forgetMapGauges, when the
// service is gone or no longer routed. A map frozen by a refused setting keeps them. The
// prober's own counters live with it (controllers/probing).

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/types"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

// Routing's gauges, registered into controller-runtime's registry by the manager (see
// Collectors).
var (
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

	passiveGateHomes = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "ome_routing_passive_gate_homes",
		Help: "Homes of a service by passive-gate state: Gated (an enforcing passive gate holds it out), WouldGate (a Shadow one would) and Capped (its real requests fail enough, but maxEjectionPercent leaves it in traffic); only for services whose probe sets a passiveGate.",
	}, []string{"namespace", "name", "state"})

	servedAtZeroHomes = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "ome_routing_served_at_zero_homes",
		Help: "Homes of a service that the route has held at weight 0 for at least one interval of the traffic signal and that the global gateway still sends requests to (TrafficApplied False, StillServed): a lost update.",
	}, []string{"namespace", "name"})

	splitOffWeights = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "ome_routing_split_off_weights",
		Help: "1 while the requests the global gateway sends the clusters a service's route weighs are off the route's weights by more than the tolerance, in windows that start an interval after the route carried them (TrafficApplied False, SplitMismatch): the gateway may not follow the route; 0 otherwise.",
	}, []string{"namespace", "name"})

	trafficAppliedSeconds = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "ome_routing_traffic_applied_seconds",
		Help: "Time from the routing reconciler's decision to give a home weight 0 to each stage of it reaching the traffic: route_written (the publisher says the route carries it) and traffic_moved (the start of the first window of the traffic signal with no request to the home).",
		// From a fast route write to a slow window: the signal's window is whole seconds.
		Buckets: []float64{0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120, 300},
	}, []string{"stage"})

	capacityFallbackHomes = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "ome_trafficmap_capacity_fallback_homes",
		Help: "Number of homes currently using control-plane allocation because configured endpoint capacity did not produce a usable ceiling.",
	}, []string{"namespace", "trafficmap"})
)

// Collectors are the routing metrics, for the manager to register.
func Collectors() []prometheus.Collector {
	return []prometheus.Collector{gatedHomes, shadowGatedHomes, refusedHomes, unobservedHomes, settingsRefused, capacityFallbackHomes, passiveGateHomes,
		servedAtZeroHomes, splitOffWeights, trafficAppliedSeconds, homesByServingState}
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

// setRefusedHomes records how many of a map's homes the operator refuses. The series goes
// with the map (forgetMapGauges).
func setRefusedHomes(key types.NamespacedName, n int) {
	refusedHomes.WithLabelValues(key.Namespace, key.Name).Set(float64(n))
}

// forgetMapGauges deletes every gauge the reconciler sets for a map (setMapGauges,
// setSettingsRefused), once the service is gone or no longer routed: the reconciler is
// their one writer, and this is the one place that deletes them all. (Only the capacity
// fallback series also goes when polling is turned off: it exists only for a polled map.)
// A refused setting freezes the map without forgetting it, so its gauges stay.
func forgetMapGauges(key types.NamespacedName) {
	gatedHomes.DeleteLabelValues(key.Namespace, key.Name)
	shadowGatedHomes.DeleteLabelValues(key.Namespace, key.Name)
	refusedHomes.DeleteLabelValues(key.Namespace, key.Name)
	unobservedHomes.DeleteLabelValues(key.Namespace, key.Name)
	settingsRefused.DeleteLabelValues(key.Namespace, key.Name)
	servedAtZeroHomes.DeleteLabelValues(key.Namespace, key.Name)
	splitOffWeights.DeleteLabelValues(key.Namespace, key.Name)
	forgetCapacityMetrics(key)
	setPassiveGateHomes(key, false, nil)
}

// setPassiveGateHomes records a map's homes by passive-gate state; a service without a
// passive gate has no series.
func setPassiveGateHomes(key types.NamespacedName, passive bool, entries []omev1beta1.TrafficMapEntry) {
	if !passive {
		passiveGateHomes.DeletePartialMatch(prometheus.Labels{"namespace": key.Namespace, "name": key.Name})
		return
	}
	var gated, would, capped int
	for _, e := range entries {
		if pg := e.PassiveGate; pg != nil {
			gated, would, capped = gated+b2i(pg.Gated), would+b2i(pg.WouldGate), capped+b2i(pg.Capped)
		}
	}
	passiveGateHomes.WithLabelValues(key.Namespace, key.Name, "Gated").Set(float64(gated))
	passiveGateHomes.WithLabelValues(key.Namespace, key.Name, "WouldGate").Set(float64(would))
	passiveGateHomes.WithLabelValues(key.Namespace, key.Name, "Capped").Set(float64(capped))
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
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

// The stages of a withdrawal that ome_routing_traffic_applied_seconds times.
const (
	stageRouteWritten = "route_written"
	stageTrafficMoved = "traffic_moved"
)

func observeTrafficApplied(stage string, d time.Duration) {
	trafficAppliedSeconds.WithLabelValues(stage).Observe(max(d, 0).Seconds())
}

// setServedAtZero records how many homes at weight 0 the gateway still serves. Every
// routed map has the series, 0 when none is; it goes with the map (forgetMapGauges).
func setServedAtZero(key types.NamespacedName, n int) {
	servedAtZeroHomes.WithLabelValues(key.Namespace, key.Name).Set(float64(n))
}

// setSplitOffWeights records whether the gateway's split is off the route's weights. Every
// routed map has the series; it goes with the map (forgetMapGauges).
func setSplitOffWeights(key types.NamespacedName, off bool) {
	v := 0.0
	if off {
		v = 1
	}
	splitOffWeights.WithLabelValues(key.Namespace, key.Name).Set(v)
}

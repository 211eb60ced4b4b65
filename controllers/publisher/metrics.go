package publisher

import (
	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/types"

	"github.com/ome-routing/operator/pkg/config"
)

// publicationFallback is OME's gauge for a map whose route is served from a retained plan:
// here, a route kept as last published because the current plan sends nothing (hold.go).
// The publisher sets it with every status write of a map and deletes it with the map, so
// it is the one writer of the series.
var publicationFallback = prometheus.NewGaugeVec(prometheus.GaugeOpts{
	Name: "ome_trafficmap_publication_fallback",
	Help: "1 while the publisher keeps a TrafficMap's route as last published instead of a plan that sends nothing (PublicationFallback True, LastPositiveRetained), 0 otherwise.",
}, []string{"namespace", "trafficmap", "publisher"})

// Collectors are the publisher's metrics, for the manager to register.
func Collectors() []prometheus.Collector {
	return []prometheus.Collector{publicationFallback}
}

// setPublicationFallback records whether the map's route is held.
func setPublicationFallback(key types.NamespacedName, held bool) {
	v := 0.0
	if held {
		v = 1
	}
	publicationFallback.WithLabelValues(key.Namespace, key.Name, config.BuiltinPublisher).Set(v)
}

// forgetPublicationFallback drops the series of a map that is gone.
func forgetPublicationFallback(key types.NamespacedName) {
	publicationFallback.DeletePartialMatch(prometheus.Labels{"namespace": key.Namespace, "trafficmap": key.Name})
}

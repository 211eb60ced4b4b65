package recorder

import "github.com/prometheus/client_golang/prometheus"

// Why an occurrence was not recorded, as eventsDropped's cause label says it.
const (
	// DropNamespaceShare: its namespace already had its share of the queues waiting.
	DropNamespaceShare = "namespace_share"
	// DropQueueFull: its writer's queue was full.
	DropQueueFull = "queue_full"
	// DropBudget: its home's budget of new Events was spent (eventseries.Drop).
	DropBudget = "budget"
)

// eventsDropped counts the occurrences the recorders did not record, registered into
// controller-runtime's registry by the manager (see Collectors).
var eventsDropped = prometheus.NewCounterVec(prometheus.CounterOpts{
	Name: "ome_events_dropped_total",
	Help: "Event occurrences not recorded, by reporting controller and cause (namespace_share, queue_full, budget).",
}, []string{"controller", "cause"})

// Collectors are the recorder's metrics, for the manager to register.
func Collectors() []prometheus.Collector {
	return []prometheus.Collector{eventsDropped}
}

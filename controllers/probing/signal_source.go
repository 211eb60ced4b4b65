package probing

import (
	"context"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/ome-routing/operator/pkg/passivegate"
)

// SignalSource is where a signal poller reads its homes from, R being the kind of reading
// it takes (the traffic signal's is passivegate.Reading). The poller owns the schedule:
// which homes are read, when, how many at once, and when a reading is news; a source knows
// only how to ask for one home's reading. PrometheusSource is the first.
type SignalSource[R any] interface {
	// Prepare turns a home into the query Read sends for it, once per Sync; an error says
	// why the home cannot be read, and is its reading's reason.
	Prepare(t SignalTarget) (SignalQuery, error)
	// Read takes one reading of a home for the map at key, as of at. It returns the reading
	// and how long it waited for the observer's slots.
	Read(ctx context.Context, key types.NamespacedName, q SignalQuery, at time.Time) (R, time.Duration)
	// Timeout bounds one Read, every request it sends included.
	Timeout() time.Duration
}

// SignalQuery is a home's prepared query. Its Key identifies it: a home whose key changes
// (a new route, another backend, other templates) starts afresh.
type SignalQuery interface {
	Key() string
}

// SignalTarget is a home the routing reconciler wants read, with the names of what the
// publisher writes for it (publish.HomeBackends). How those names become a query is the
// source's business.
type SignalTarget struct {
	// Cluster is the home's WorkloadCluster; Namespace and Service name its
	// InferenceService.
	Cluster, Namespace, Service string
	// Route and RouteNamespace name the service's HTTPRoute; Backends the home's backend
	// objects, and BackendPosition its backendRef's place in the route's rule, from 1.
	Route, RouteNamespace string
	Backends              []string
	BackendPosition       int
}

// The traffic signal's source reads passive gate readings.
var _ SignalSource[passivegate.Reading] = (*PrometheusSource)(nil)

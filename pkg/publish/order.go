package publish

import (
	"slices"
	"strings"
)

// Backend order is the order of a route rule's backendRefs: the map's homes by cluster
// name. It is a publisher decision others depend on: a gateway that names a backend's
// servers by their place in the rule (HAProxy Ingress: srv001, srv002, ...) is read by the
// passive gate's queries at that place. Both sides take it from here.

// SortInBackendOrder sorts items, one a home, in backend order; cluster is a home's
// cluster name.
func SortInBackendOrder[T any](items []T, cluster func(T) string) {
	slices.SortStableFunc(items, func(a, b T) int { return strings.Compare(cluster(a), cluster(b)) })
}

// HomeBackend names what the publisher writes for one home of a map: the route, the
// home's backend objects, and the place of its backendRef among the route rule's.
type HomeBackend struct {
	// Route and RouteNamespace name the map's HTTPRoute.
	Route, RouteNamespace string
	// Backends are the names of the backend objects written for the home.
	Backends []string
	// Position is the home's place among the route rule's backendRefs, from 1.
	Position int
}

// HomeBackends are the names of what the publisher writes for each of clusters, the
// homes of the map of serviceNamespace/service (all of them, the ones the route gives
// nothing included: each has its backendRef), under routeNamespace (the setting
// endpoint.routeNamespace, "" for the service's namespace).
func HomeBackends(serviceNamespace, service, routeNamespace string, clusters []string) map[string]HomeBackend {
	ordered := slices.Clone(clusters)
	SortInBackendOrder(ordered, func(c string) string { return c })
	namespace := serviceNamespace
	if routeNamespace != "" {
		namespace = routeNamespace
	}
	route := RouteName(serviceNamespace, service, routeNamespace)
	out := make(map[string]HomeBackend, len(ordered))
	for i, c := range ordered {
		out[c] = HomeBackend{Route: route, RouteNamespace: namespace, Backends: []string{BackendName(serviceNamespace, service, c)}, Position: i + 1}
	}
	return out
}

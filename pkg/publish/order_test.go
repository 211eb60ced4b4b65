package publish

import (
	"testing"

	"k8s.io/utils/ptr"
)

// HomeBackends names, for every home, the route and backend the plan writes and the place
// of the home's backendRef in the route's rule: the passive gate's queries find a home's
// series by that place, so the two must never disagree, whatever order the map lists its
// homes in and wherever the route lives.
func TestHomeBackendsAgreeWithThePlannedRoute(t *testing.T) {
	for _, routeNamespace := range []string{"", "gateway-routes"} {
		b := makeMap().
			entry("zeta", "http://chat.zeta.example.com", 1).
			entry("alpha", "http://chat.alpha.example.com", 0).
			entry("mid-2", "http://chat.mid-2.example.com", 2).
			entry("mid-10", "http://chat.mid-10.example.com", 3)
		ep := guideEndpoint()
		ep.RouteNamespace = routeNamespace
		plan, err := Build(input(b.obj(), ep))
		if err != nil {
			t.Fatal(err)
		}
		var clusters []string
		for _, e := range b.obj().Spec.Entries {
			clusters = append(clusters, e.Cluster)
		}
		named := HomeBackends("prod", "chat", routeNamespace, clusters)
		refs := plan.Route.Spec.Rules[0].BackendRefs
		if len(named) != len(refs) {
			t.Fatalf("route namespace %q: %d homes named, %d backendRefs", routeNamespace, len(named), len(refs))
		}
		for i, ref := range refs {
			cluster := plan.Backends[i].Cluster
			h := named[cluster]
			if h.Position != i+1 || len(h.Backends) != 1 || h.Backends[0] != string(ref.Name) ||
				h.Route != plan.Route.Name || h.RouteNamespace != plan.Route.Namespace || h.RouteNamespace != ptr.Deref((*string)(ref.Namespace), "") {
				t.Errorf("route namespace %q, backendRef %d (%s/%s, cluster %s): named %+v, want position %d, backend %s, route %s/%s",
					routeNamespace, i+1, ptr.Deref(ref.Namespace, ""), ref.Name, cluster, h, i+1, ref.Name, plan.Route.Namespace, plan.Route.Name)
			}
		}
	}
}

package routing

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/config"
	"github.com/ome-routing/operator/pkg/publish"
	"github.com/ome-routing/operator/pkg/trafficmap"
)

// The passive gate reads each home at the place of its backendRef in the route the
// publisher writes (HAProxy Ingress names servers by it): the targets the reconciler hands
// the signal poller must name the home's backend and its place as the plan built from the
// same map does, refused homes (which keep their backendRef) included.
func TestSignalTargetsFollowThePublishedRoute(t *testing.T) {
	homes := []trafficmap.Home{
		{Cluster: "west-2", Endpoint: "http://chat.west-2.example.com"},
		{Cluster: "east", Endpoint: "http://chat.east.example.com", Refused: "status.url refused"},
		{Cluster: "west-10", Endpoint: "http://chat.west-10.example.com"},
		{Cluster: "central", Endpoint: "http://chat.central.example.com"},
	}
	for _, routeNamespace := range []string{"", "gateway-routes"} {
		r := &Reconciler{RouteNamespace: routeNamespace}
		s := &routingScope{key: types.NamespacedName{Namespace: "prod", Name: "chat"}, homes: homes}
		tm := &omev1beta1.TrafficMap{ObjectMeta: metav1.ObjectMeta{Namespace: "prod", Name: "chat"}, Spec: omev1beta1.TrafficMapSpec{Service: "chat"}}
		for _, h := range homes {
			tm.Spec.Entries = append(tm.Spec.Entries, omev1beta1.TrafficMapEntry{Cluster: h.Cluster, Endpoint: h.Endpoint, Weight: 1})
		}
		plan, err := publish.Build(publish.Input{Map: tm, ServiceNamespace: "prod", ServiceName: "chat", Endpoint: config.Endpoint{
			GlobalGateway: "gateway-system/global", BackendPort: 80, GlobalHostTemplate: "{{ .Name }}.{{ .Namespace }}.global.example.com",
			RouteNamespace: routeNamespace,
		}})
		if err != nil {
			t.Fatal(err)
		}
		position := map[string]int{}
		for i, ref := range plan.Route.Spec.Rules[0].BackendRefs {
			position[string(ref.Name)] = i + 1
		}
		read := []trafficmap.Home{homes[0], homes[2], homes[3]}
		targets := r.signalTargets(s, read)
		if len(targets) != len(read) {
			t.Fatalf("%d targets for %d homes read", len(targets), len(read))
		}
		for _, tg := range targets {
			if len(tg.Backends) != 1 || position[tg.Backends[0]] == 0 || tg.BackendPosition != position[tg.Backends[0]] ||
				tg.Route != plan.Route.Name || tg.RouteNamespace != plan.Route.Namespace {
				t.Errorf("route namespace %q, cluster %s: target %+v; the route has backend positions %v and is %s/%s",
					routeNamespace, tg.Cluster, tg, position, plan.Route.Namespace, plan.Route.Name)
			}
		}
	}
}

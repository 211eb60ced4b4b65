package routing

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/config"
	"github.com/ome-routing/operator/pkg/passivegate"
	"github.com/ome-routing/operator/pkg/publish"
	"github.com/ome-routing/operator/pkg/trafficmap"
)

// A gate's record keeps what the next decision needs: a new leader, or the next reconcile,
// reads back the same state (to the second), Shadow gates included, and the counts of the
// reading that closed the gate.
func TestPassiveRecordRoundTrip(t *testing.T) {
	now := time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC)
	st := passivegate.State{Gated: true, Since: now, Until: now.Add(30 * time.Second), Count: 2, LastLift: now.Add(-time.Minute),
		Requests: 90.4, FailedPercent: 100.0 / 3}
	for _, enforced := range []bool{true, false} {
		rec := passiveRecord(passivegate.Decision{State: st, Message: "held"}, passivegate.Reading{Known: true, Requests: 3}, enforced, nil)
		if rec.Gated != enforced || rec.WouldGate == enforced || rec.Signal != omev1beta1.TrafficSignalKnown || rec.Message != "held" {
			t.Fatalf("enforced %v: %+v", enforced, rec)
		}
		if *rec.Requests != 90 || *rec.Failures != 30 {
			t.Fatalf("the closing reading's counts: %d of %d", *rec.Failures, *rec.Requests)
		}
		back := passiveState(rec)
		if !back.Gated || !back.Since.Equal(st.Since) || !back.Until.Equal(st.Until) || back.Count != 2 || !back.LastLift.Equal(st.LastLift) ||
			back.Requests != 90 || back.FailedPercent < 33 || back.FailedPercent > 34 {
			t.Fatalf("enforced %v: read back %+v from %+v", enforced, back, rec)
		}
	}
}

// Without a gate the record holds the last Known reading; an Unknown one keeps the counts
// before it and says why.
func TestPassiveRecordReadings(t *testing.T) {
	known := passiveRecord(passivegate.Decision{}, passivegate.Reading{Known: true, Requests: 50.6, Failures: 80}, true, nil)
	if *known.Requests != 51 || *known.Failures != 51 || known.Message != "" {
		t.Fatalf("failures are capped at the requests: %+v", known)
	}
	unknown := passiveRecord(passivegate.Decision{}, passivegate.Reading{Reason: "requests: the query gave no sample"}, true, known)
	if unknown.Signal != omev1beta1.TrafficSignalUnknown || ptr.Deref(unknown.Requests, 0) != 51 || unknown.Message != "requests: the query gave no sample" {
		t.Fatalf("got %+v", unknown)
	}
	if s := passiveState(unknown); s.Gated || s.Requests != 0 {
		t.Fatalf("an ungated record's state: %+v", s)
	}
}

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

package routing

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/event"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/controllers/publisher"
)

// The publisher's writes bring the routing reconciler nothing to do; every change of what
// the routing reconciler owns or reads still does.
func TestRoutingInputChanged(t *testing.T) {
	base := func() *omev1beta1.TrafficMap {
		tm := &omev1beta1.TrafficMap{
			Status:     omev1beta1.TrafficMapStatus{Published: true},
			ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "m", Generation: 1, ResourceVersion: "1"},
			Spec: omev1beta1.TrafficMapSpec{Service: "m", Entries: []omev1beta1.TrafficMapEntry{
				{Cluster: "a", Endpoint: "http://a.example.com", Weight: 1},
				{Cluster: "b", Endpoint: "http://b.example.com", Weight: 1},
			}},
		}
		tm.Status.SourceUID, tm.Status.Homes = "uid", ptr.To[int32](2)
		tm.Status.Conditions = []metav1.Condition{
			{Type: omev1beta1.TrafficMapRoutable, Status: metav1.ConditionTrue, Reason: "Routable", ObservedGeneration: 1},
		}
		return tm
	}
	cases := []struct {
		name string
		edit func(*omev1beta1.TrafficMap)
		want bool
	}{
		// Whether a route carries the map at all goes into the homes' serving states.
		{"published by the publisher", func(tm *omev1beta1.TrafficMap) {
			tm.Status.Published, tm.Status.ObservedTrafficMapGeneration = true, 1
			tm.Status.GatewayRef = &omev1beta1.TrafficMapGatewayRef{Name: "m-global"}
			tm.Status.Conditions = append(tm.Status.Conditions, metav1.Condition{Type: omev1beta1.TrafficMapPublished, Status: metav1.ConditionTrue})
		}, true},
		{"the publisher's route parents, Published as it was", func(tm *omev1beta1.TrafficMap) {
			tm.Status.RouteParents = []omev1beta1.RouteParentStatus{{Parent: "gw/global", Accepted: metav1.ConditionTrue}}
		}, false},
		{"the route catches up with the map's route generation", func(tm *omev1beta1.TrafficMap) {
			tm.Status.RouteGeneration, tm.Status.ObservedTrafficMapGeneration = 1, 1
		}, true},
		{"the publisher observes a probe round's generation, the route already caught up", func(tm *omev1beta1.TrafficMap) {
			tm.Status.ObservedTrafficMapGeneration = 3
		}, false},
		{"Published turns True on a map with an entry at weight 0", func(tm *omev1beta1.TrafficMap) {
			tm.Spec.Entries[1].Weight = 0
			tm.Status.Conditions = append(tm.Status.Conditions, metav1.Condition{Type: omev1beta1.TrafficMapPublished, Status: metav1.ConditionTrue})
		}, true},
		{"the publisher's finalizer", func(tm *omev1beta1.TrafficMap) { tm.Finalizers = []string{publisher.Finalizer} }, false},
		{"a spec edit", func(tm *omev1beta1.TrafficMap) { tm.Generation = 2; tm.Spec.Entries[0].Weight = 9 }, true},
		{"the Routable condition edited", func(tm *omev1beta1.TrafficMap) { tm.Status.Conditions[0].Status = metav1.ConditionFalse }, true},
		{"a routing condition removed", func(tm *omev1beta1.TrafficMap) { tm.Status.Conditions = nil }, true},
		{"homes edited", func(tm *omev1beta1.TrafficMap) { tm.Status.Homes = ptr.To[int32](5) }, true},
		{"sourceUID edited", func(tm *omev1beta1.TrafficMap) { tm.Status.SourceUID = "x" }, true},
		{"owner references", func(tm *omev1beta1.TrafficMap) {
			tm.OwnerReferences = nil
			tm.OwnerReferences = []metav1.OwnerReference{{Name: "x"}}
		}, true},
		{"deleted", func(tm *omev1beta1.TrafficMap) { now := metav1.Now(); tm.DeletionTimestamp = &now }, true},
	}
	for _, c := range cases {
		after := base()
		c.edit(after)
		after.ResourceVersion = "9"
		if got := (routingInputChanged{}).Update(event.UpdateEvent{ObjectOld: base(), ObjectNew: after}); got != c.want {
			t.Errorf("%s: passes = %v, want %v", c.name, got, c.want)
		}
	}
}

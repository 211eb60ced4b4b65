package trafficmap

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

func TestCountServingCountsHomesThatServe(t *testing.T) {
	routable := Condition{metav1.ConditionTrue, omev1beta1.TrafficMapReasonRoutable, "2 of 2 home(s) take traffic"}
	leftOut := []omev1beta1.TrafficMapEntry{{Cluster: "a", Weight: 1, Serving: omev1beta1.ServingStateServing},
		{Cluster: "b", Weight: 1, Serving: omev1beta1.ServingStateLeftOutOfRoute}}
	if got := CountServing(routable, leftOut).Message; got != "1 of 2 home(s) take traffic" {
		t.Errorf("a home left out of the route: %q", got)
	}
	stillServed := []omev1beta1.TrafficMapEntry{{Cluster: "a", Weight: 1, Serving: omev1beta1.ServingStateServing},
		{Cluster: "b", Serving: omev1beta1.ServingStateStillServedAtZero}}
	one := Condition{metav1.ConditionTrue, omev1beta1.TrafficMapReasonRoutable, "1 of 2 home(s) take traffic; 1 home(s) refused by the operator, with weight 0: b: x"}
	if got := CountServing(one, stillServed).Message; got != "2 of 2 home(s) take traffic; 1 home(s) refused by the operator, with weight 0: b: x" {
		t.Errorf("a home still served at 0: %q", got)
	}
	unjudged := []omev1beta1.TrafficMapEntry{{Cluster: "a", Weight: 1}, {Cluster: "b", Weight: 1}}
	if got := CountServing(routable, unjudged); got != routable {
		t.Errorf("entries without a state: %+v", got)
	}
	// No publisher has said a route carries the map: the weights' count stands.
	unpublished := []omev1beta1.TrafficMapEntry{{Cluster: "a", Weight: 1, Serving: omev1beta1.ServingStateUnknown},
		{Cluster: "b", Serving: omev1beta1.ServingStateHeldOutUnconfirmed}}
	if got := CountServing(one, unpublished); got != one {
		t.Errorf("homes in state Unknown: %+v", got)
	}
	drained := Condition{metav1.ConditionFalse, omev1beta1.TrafficMapReasonTrafficDrain, "manual traffic-drain overrides set all 2 route arm(s) to zero"}
	if got := CountServing(drained, leftOut); got != drained {
		t.Errorf("another condition: %+v", got)
	}
}

package traffic

import (
	"fmt"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/cmd/kubectl-ome/app/placement"
	"github.com/ome-routing/operator/cmd/kubectl-ome/app/util"
)

func statusOf(t *testing.T, annotation string, weights ...int32) string {
	t.Helper()
	isvc := &omev1beta1.InferenceService{ObjectMeta: metav1.ObjectMeta{Name: "chat", Namespace: "prod", UID: "u1"}}
	if annotation != "" {
		isvc.Annotations = map[string]string{"ome.io/traffic-drain": annotation}
	}
	ep := &placement.EndpointReport{Target: placement.ReportTarget{Name: "chat"}}
	ep.Content.TrafficMap = placement.TrafficMapState{State: "Observed"}
	for i, w := range weights {
		h := placement.RouteHome{Cluster: fmt.Sprintf("worker-%c", 'a'+i), Weight: w}
		if w == 0 {
			h.DrainRefs = []string{"maintenance-a"}
		}
		ep.Content.RouteHomes = append(ep.Content.RouteHomes, h)
	}
	var b strings.Builder
	if err := util.PrintFixedRows(&b, statusRows(buildStatus(isvc, nil, ep), false)); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestStatusDrainedHome(t *testing.T) {
	got := statusOf(t, `{"maintenance-a":{"cluster":"worker-a","reason":"planned maintenance"}}`, 0, 3)
	for _, want := range []string{
		"Drain annotation     1 override(s), 1 on a route home (Computed)\n",
		"Route home           worker-a\nWeight               0 (Reported)\nShare                0% (Computed)\nDrain refs           maintenance-a (Reported)\nAnnotation drains    maintenance-a (Computed)\n",
		"Weight               3 (Reported)\nShare                100% (Computed)\nDrain refs           Validated (Reported)\nAnnotation drains    None (Computed)\n",
		"Observed             NotObserved: no gateway traffic counters are read;",
		"View                 Bounded cells; use -o json for complete identities\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
	if strings.Contains(got, " Observed (") {
		t.Errorf("claims observed evidence:\n%s", got)
	}
}

func TestStatusPreviewAndBadAnnotation(t *testing.T) {
	got := statusOf(t, `{"x":1}`, 1, 1, 1, 1, 1, 1)
	if !strings.Contains(got, "Route homes          4/6; use -o wide or json\n") || strings.Contains(got, "worker-e") {
		t.Errorf("no preview of 4 of 6:\n%s", got)
	}
	if !strings.Contains(got, "Drain annotation     Invalid (Computed): ") {
		t.Errorf("malformed annotation not shown:\n%s", got)
	}
}

// With the traffic signal, the map's TrafficApplied verdict is Observed, and a home with a
// passive gate shows its last reading; an Unknown reading says why it is not observed,
// and a verdict still awaited is NotObserved with the condition's words.
func TestStatusObservedTraffic(t *testing.T) {
	isvc := &omev1beta1.InferenceService{ObjectMeta: metav1.ObjectMeta{Name: "chat", Namespace: "prod", UID: "u1"}}
	ep := &placement.EndpointReport{Target: placement.ReportTarget{Name: "chat"}}
	ep.Content.TrafficMap = placement.TrafficMapState{State: placement.Observed}
	ep.Content.RouteHomes = []placement.RouteHome{{Cluster: "worker-a", Weight: 1}, {Cluster: "worker-b", Weight: 0}}
	tm := &omev1beta1.TrafficMap{Spec: omev1beta1.TrafficMapSpec{Entries: []omev1beta1.TrafficMapEntry{
		{Cluster: "worker-a", Weight: 1, PassiveGate: &omev1beta1.TrafficMapPassiveGate{Signal: omev1beta1.TrafficSignalKnown,
			Requests: ptr.To[int64](250), Failures: ptr.To[int64](2)}},
		{Cluster: "worker-b", PassiveGate: &omev1beta1.TrafficMapPassiveGate{Signal: omev1beta1.TrafficSignalUnknown,
			Message: "requests: the query gave no sample"}},
	}}}
	tm.Status.Conditions = []metav1.Condition{{Type: omev1beta1.TrafficMapTrafficApplied, Status: metav1.ConditionTrue, Reason: "TrafficMoved",
		Message: "The gateway sends no request to the 1 cluster(s) the route holds at weight 0: worker-b: weight 0 in the route after 40ms, no requests after 2.1s"}}
	render := func(tm *omev1beta1.TrafficMap) string {
		var b strings.Builder
		if err := util.PrintFixedRows(&b, statusRows(buildStatus(isvc, tm, ep), true)); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	got := render(tm)
	for _, want := range []string{
		"Route home           worker-a\nWeight               1 (Reported)\n",
		"Requests             250, 2 failed, over the signal's window (Observed)\n",
		"Requests             NotObserved: requests: the query gave no sample\n",
		"Observed             Observed: TrafficApplied True TrafficMoved: The gateway sends no request to the 1 cluster(s)",
		"Hint                 Reported is the TrafficMap; Computed is derived by the CLI; Observed is the gateway's own counters\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
	tm.Status.Conditions[0].Status, tm.Status.Conditions[0].Reason = metav1.ConditionUnknown, "AwaitingEvidence"
	tm.Status.Conditions[0].Message = "No evidence yet"
	if got := render(tm); !strings.Contains(got, "Observed             NotObserved: TrafficApplied Unknown AwaitingEvidence: No evidence yet\n") ||
		strings.Contains(got, "Observed is the gateway's own counters") {
		t.Errorf("an awaited verdict:\n%s", got)
	}
	ep.Content.TrafficMap = placement.TrafficMapState{State: placement.Unavailable, Reason: "OwnershipUnbound"}
	if got := render(tm); !strings.Contains(got, "Observed             NotObserved: no gateway traffic counters are read;") || strings.Contains(got, "Requests") {
		t.Errorf("a map that is not the service's is not read:\n%s", got)
	}
}

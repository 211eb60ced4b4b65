package traffic

import (
	"fmt"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

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
	if err := util.PrintFixedRows(&b, statusRows(buildStatus(isvc, ep), false)); err != nil {
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

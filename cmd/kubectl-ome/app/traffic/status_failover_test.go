package traffic

import (
	"encoding/json"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/cmd/kubectl-ome/app/placement"
	"github.com/ome-routing/operator/cmd/kubectl-ome/app/util"
)

// failoverStatus is the status of a map whose east tier takes 70% and west the rest.
func failoverStatus() *StatusReport {
	isvc := &omev1beta1.InferenceService{ObjectMeta: metav1.ObjectMeta{Name: "chat", Namespace: "prod", UID: "u1"}}
	ep := &placement.EndpointReport{Target: placement.ReportTarget{Name: "chat"}}
	ep.Content.TrafficMap = placement.TrafficMapState{State: "Observed"}
	ep.Content.Failover = &placement.FailoverView{OverprovisioningPercent: 140, Summary: "east 70%, west 30%",
		Tiers: []placement.TierView{{Name: "east", Health: 70, LoadPercent: 70}, {Name: "west", Health: 100, LoadPercent: 30}}}
	ep.Content.RouteHomes = []placement.RouteHome{{Cluster: "worker-a", Weight: 7, Tier: "east"}, {Cluster: "worker-b", Weight: 3, Tier: "west"}}
	return buildStatus(isvc, nil, ep)
}

func TestStatusWithFailover(t *testing.T) {
	var b strings.Builder
	if err := util.PrintFixedRows(&b, statusRows(failoverStatus(), false)); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	for _, want := range []string{
		"Drain annotation     0 override(s), 0 on a route home (Computed)\nTier split           east 70%, west 30% (Reported)\nRoute home           worker-a\n",
		"Route home           worker-a\nTier                 east (Reported)\nWeight               7 (Reported)\nShare                70% (Computed)\n",
		"Route home           worker-b\nTier                 west (Reported)\nWeight               3 (Reported)\nShare                30% (Computed)\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
	out, err := json.Marshal(failoverStatus())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), `"tierSplit":"east 70%, west 30%"`) || !strings.Contains(string(out), `"tier":"west"`) {
		t.Errorf("JSON lacks the tiers: %s", out)
	}
}

// Without failover there is no tier row and no tier field: the view is as it was.
func TestStatusWithoutFailoverHasNoTiers(t *testing.T) {
	got := statusOf(t, "", 1, 3)
	if strings.Contains(got, "Tier") {
		t.Errorf("tier rows without failover:\n%s", got)
	}
	isvc := &omev1beta1.InferenceService{ObjectMeta: metav1.ObjectMeta{Name: "chat"}}
	ep := &placement.EndpointReport{}
	ep.Content.RouteHomes = []placement.RouteHome{{Cluster: "worker-a", Weight: 1}}
	out, err := json.Marshal(buildStatus(isvc, nil, ep))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(out), "tier") {
		t.Errorf("JSON has tier fields without failover: %s", out)
	}
}

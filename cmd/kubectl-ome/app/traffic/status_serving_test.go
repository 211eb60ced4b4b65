package traffic

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/cmd/kubectl-ome/app/placement"
	"github.com/ome-routing/operator/cmd/kubectl-ome/app/util"
)

// servingMap is a map as the manager writes it: worker-a serves, worker-b has a weight but
// the publish guard leaves it out of the route, worker-c is gated and the gateway still
// sends it requests.
func servingMap(probed time.Time) (*omev1beta1.InferenceService, *omev1beta1.TrafficMap) {
	isvc := &omev1beta1.InferenceService{ObjectMeta: metav1.ObjectMeta{Name: "chat", Namespace: "prod", UID: "u1", Generation: 1}}
	at := metav1.NewTime(probed)
	probe := func() *omev1beta1.TrafficMapProbe {
		return &omev1beta1.TrafficMapProbe{PolicyDigest: "sha256:" + strings.Repeat("1", 64), Result: omev1beta1.ProbePassing, LastProbeTime: &at}
	}
	tm := &omev1beta1.TrafficMap{
		ObjectMeta: metav1.ObjectMeta{Name: "chat", Namespace: "prod", Generation: 2,
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "ome.io/v1beta1", Kind: "InferenceService", Name: "chat", UID: "u1", Controller: ptr.To(true)}}},
		Spec: omev1beta1.TrafficMapSpec{Service: "chat", ObservedISVCGeneration: 1, Entries: []omev1beta1.TrafficMapEntry{
			{Cluster: "worker-a", Endpoint: "http://a.example.com", Weight: 1, WeightReason: omev1beta1.WeightRouted, Serving: omev1beta1.ServingStateServing, Probe: probe()},
			{Cluster: "worker-b", Endpoint: "http://b.example.com", Weight: 1, WeightReason: omev1beta1.WeightRouted, Serving: omev1beta1.ServingStateLeftOutOfRoute, Probe: probe()},
			{Cluster: "worker-c", Endpoint: "http://c.example.com", WeightReason: omev1beta1.WeightGated, Serving: omev1beta1.ServingStateStillServedAtZero, Probe: probe()},
		}},
		Status: omev1beta1.TrafficMapStatus{ServingHomes: ptr.To[int32](2), VerdictTime: &at, ProbePeriod: &metav1.Duration{Duration: time.Second},
			HomeStates:     "worker-b LeftOutOfRoute HostRefused | worker-c StillServedAtZero Gated",
			LeftOutOfRoute: []omev1beta1.LeftOutCluster{{Cluster: "worker-b", Reason: omev1beta1.LeftOutHostRefused, Message: "refused"}}},
	}
	return isvc, tm
}

func servingStatus(t *testing.T, isvc *omev1beta1.InferenceService, tm *omev1beta1.TrafficMap, now time.Time) string {
	t.Helper()
	var b strings.Builder
	if err := util.PrintFixedRows(&b, statusRows(buildStatus(isvc, tm, placement.Report(isvc, tm, nil, now)), true)); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// traffic status reads each home's serving state: a home left out of the route has 0% of
// the traffic whatever its weight, the weight's reason is next to it, and a home the
// gateway still serves at 0 says so.
func TestStatusShowsTheServingStates(t *testing.T) {
	now := time.Date(2026, 12, 5, 10, 0, 0, 0, time.UTC)
	isvc, tm := servingMap(now.Add(-time.Second))
	got := servingStatus(t, isvc, tm, now)
	for _, want := range []string{
		"Serving homes        2 of 3 home(s) take traffic; 2 weighted; judged 1s ago\n",
		"Route home           worker-a\nWeight               1 (Reported); Routed\nShare                100% (Computed)\n",
		"Route home           worker-b\nWeight               1 (Reported); Routed\nShare                0% (Computed)\n",
		"Serving state        LeftOutOfRoute: takes no traffic: the route leaves it out (HostRefused)",
		"Weight               0 (Reported); Gated\n",
		"Serving state        StillServedAtZero: still takes traffic",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
}

// A manager that stopped writes nothing: the map's last probe ages, and traffic status says
// Stale over every home and the summary rather than the states it last recorded.
func TestStatusSaysStaleWhenTheManagerStopped(t *testing.T) {
	now := time.Date(2026, 12, 5, 10, 0, 0, 0, time.UTC)
	isvc, tm := servingMap(now.Add(-time.Minute))
	got := servingStatus(t, isvc, tm, now)
	if n := strings.Count(got, "Serving state        Stale: the map may no longer hold: last probe recorded 60s ago"); n != 3 {
		t.Errorf("%d homes read Stale, want 3:\n%s", n, got)
	}
	if !strings.Contains(got, "Serving homes        Stale: last probe recorded 60s ago") {
		t.Errorf("the summary does not say Stale:\n%s", got)
	}
	if strings.Contains(got, "Serving state        Serving") {
		t.Errorf("a stale map still reads Serving:\n%s", got)
	}
}

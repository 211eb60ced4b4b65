package placement

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

// Only a member the placement selects whose API server does not answer is unreadable;
// a setting to fix, a Ready member and one elsewhere are not.
func TestUnreadable(t *testing.T) {
	since := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	down := withReady(cluster("worker-c", false, nil), metav1.ConditionFalse, string(omev1beta1.WorkloadClusterReasonConnectionFailed), "connection refused")
	down.Status.Conditions[0].LastTransitionTime = metav1.NewTime(since)
	down.Spec.AllowedEndpointDomains = []omev1beta1.EndpointDomain{"example.com"}
	fleet := []omev1beta1.WorkloadCluster{
		down,
		withReady(cluster("worker-d", false, nil), metav1.ConditionFalse, string(omev1beta1.WorkloadClusterReasonSecretNotFound), "not found"),
		withReady(cluster("worker-b", true, nil), metav1.ConditionTrue, string(omev1beta1.WorkloadClusterReasonProbeFailedRetrying), "timeout"),
		withReady(cluster("worker-a", false, nil), metav1.ConditionFalse, string(omev1beta1.WorkloadClusterReasonConnectionFailed), "refused"),
		{ObjectMeta: metav1.ObjectMeta{Name: "worker-new"}},
		withReady(cluster("elsewhere", false, nil), metav1.ConditionFalse, string(omev1beta1.WorkloadClusterReasonConnectionFailed), "refused"),
	}
	p := &omev1beta1.Placement{ClusterAffinity: []omev1beta1.ClusterAffinityTerm{
		names(omev1beta1.MatchOperatorIn, "worker-a", "worker-b", "worker-c", "worker-d", "worker-new")}}
	got := Unreadable(p, fleet)
	if len(got) != 2 || got[0].Cluster != "worker-a" || got[1].Cluster != "worker-c" {
		t.Fatalf("Unreadable() = %+v, want worker-a and worker-c", got)
	}
	if !got[1].Since.Equal(since) || len(got[1].Domains) != 1 {
		t.Errorf("Unreadable()[1] = %+v, want since %v and its domains", got[1], since)
	}
	if Unreadable(nil, fleet) != nil {
		t.Errorf("no placement, no candidates: nothing is unreadable")
	}
}

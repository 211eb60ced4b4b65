package placement

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

func withReady(wc omev1beta1.WorkloadCluster, status metav1.ConditionStatus, reason, message string) omev1beta1.WorkloadCluster {
	wc.Status.Conditions = []metav1.Condition{{Type: omev1beta1.WorkloadClusterReady, Status: status, Reason: reason, Message: message}}
	return wc
}

func TestUnready(t *testing.T) {
	fleet := []omev1beta1.WorkloadCluster{
		withReady(cluster("worker-d", false, nil), metav1.ConditionFalse, string(omev1beta1.WorkloadClusterReasonSecretNotFound), "Secret ome/worker-d-kubeconfig not found"),
		withReady(cluster("worker-c", false, nil), metav1.ConditionFalse, string(omev1beta1.WorkloadClusterReasonConnectionFailed), "dial tcp 127.0.0.1:1: connection refused"),
		withReady(cluster("worker-b", true, nil), metav1.ConditionTrue, string(omev1beta1.WorkloadClusterReasonProbeFailedRetrying), "timeout"),
		cluster("worker-a", true, nil),
		{ObjectMeta: metav1.ObjectMeta{Name: "worker-new"}},
		withReady(cluster("elsewhere", false, nil), metav1.ConditionFalse, string(omev1beta1.WorkloadClusterReasonConnectionFailed), "refused"),
	}
	p := &omev1beta1.Placement{ClusterAffinity: []omev1beta1.ClusterAffinityTerm{
		names(omev1beta1.MatchOperatorIn, "worker-a", "worker-b", "worker-c", "worker-d", "worker-new")}}
	got := Unready(p, fleet)
	want := []omev1beta1.ExcludedCluster{
		{Cluster: "worker-c", Reason: omev1beta1.ExcludedClusterUnreachable,
			Message: "WorkloadCluster Ready is False (ConnectionFailed): dial tcp 127.0.0.1:1: connection refused"},
		{Cluster: "worker-d", Reason: omev1beta1.ExcludedClusterNotReady,
			Message: "WorkloadCluster Ready is False (SecretNotFound): Secret ome/worker-d-kubeconfig not found"},
		{Cluster: "worker-new", Reason: omev1beta1.ExcludedClusterNotReady, Message: "the WorkloadCluster has no Ready condition yet"},
	}
	if len(got) != len(want) {
		t.Fatalf("Unready() = %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("Unready()[%d] = %+v, want %+v", i, got[i], want[i])
		}
	}
	if Unready(nil, fleet) != nil {
		t.Errorf("no placement excludes nothing")
	}
	long := []omev1beta1.WorkloadCluster{withReady(cluster("x", false, nil), metav1.ConditionFalse, "ConnectionFailed", strings.Repeat("é", 700))}
	if m := Unready(&omev1beta1.Placement{}, long)[0].Message; len(m) > 1024 || strings.ContainsRune(m, '\uFFFD') {
		t.Errorf("a long message: %d bytes", len(m))
	}
}

func TestExclusion(t *testing.T) {
	if x := Exclusion("worker-b", "ns/chat", nil); x.Reason != omev1beta1.ExcludedNoCopy || x.Message != "the cluster holds no copy of InferenceService ns/chat" {
		t.Errorf("no copy: %+v", x)
	}
	if x := Exclusion("worker-b", "ns/chat", &omev1beta1.InferenceService{}); x.Reason != omev1beta1.ExcludedNoEndpoint ||
		x.Message != "its copy of InferenceService ns/chat reports no status.url yet" {
		t.Errorf("no endpoint: %+v", x)
	}
	if x := NotConnected("worker-b"); x.Reason != omev1beta1.ExcludedMemberNotConnected || x.Cluster != "worker-b" ||
		x.Message != "the WorkloadCluster is Ready, but the manager has not connected to it yet, so its copies are unknown" {
		t.Errorf("not connected: %+v", x)
	}
}

package placement

import (
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

func cluster(name string, ready bool, labels map[string]string) omev1beta1.WorkloadCluster {
	status := metav1.ConditionFalse
	if ready {
		status = metav1.ConditionTrue
	}
	return omev1beta1.WorkloadCluster{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		Status: omev1beta1.WorkloadClusterStatus{Conditions: []metav1.Condition{
			{Type: omev1beta1.WorkloadClusterReady, Status: status, Reason: "Test"},
		}},
	}
}

func names(op omev1beta1.MatchOperator, values ...string) omev1beta1.ClusterAffinityTerm {
	return omev1beta1.ClusterAffinityTerm{MatchFields: []omev1beta1.FieldSelectorRequirement{
		{Key: "metadata.name", Operator: op, Values: values},
	}}
}

func TestCandidates(t *testing.T) {
	fleet := []omev1beta1.WorkloadCluster{
		cluster("worker-b", true, map[string]string{"region": "eu"}),
		cluster("worker-a", true, map[string]string{"region": "us"}),
		cluster("worker-c", false, map[string]string{"region": "eu"}),
	}
	tests := []struct {
		name      string
		placement *omev1beta1.Placement
		want      []string
	}{
		{"no placement selects nothing", nil, nil},
		{"no terms selects every ready cluster", &omev1beta1.Placement{}, []string{"worker-a", "worker-b"}},
		{"In by name, sorted, not-ready left out", &omev1beta1.Placement{ClusterAffinity: []omev1beta1.ClusterAffinityTerm{
			names(omev1beta1.MatchOperatorIn, "worker-b", "worker-a", "worker-c")}}, []string{"worker-a", "worker-b"}},
		{"NotIn by name", &omev1beta1.Placement{ClusterAffinity: []omev1beta1.ClusterAffinityTerm{
			names(omev1beta1.MatchOperatorNotIn, "worker-a")}}, []string{"worker-b"}},
		{"matchLabels", &omev1beta1.Placement{ClusterAffinity: []omev1beta1.ClusterAffinityTerm{
			{MatchLabels: map[string]string{"region": "eu"}}}}, []string{"worker-b"}},
		{"requirements of a term are ANDed", &omev1beta1.Placement{ClusterAffinity: []omev1beta1.ClusterAffinityTerm{{
			MatchFields: names(omev1beta1.MatchOperatorIn, "worker-a").MatchFields,
			MatchLabels: map[string]string{"region": "eu"}}}}, nil},
		{"terms are ORed", &omev1beta1.Placement{ClusterAffinity: []omev1beta1.ClusterAffinityTerm{
			names(omev1beta1.MatchOperatorIn, "worker-a"), {MatchLabels: map[string]string{"region": "eu"}}}},
			[]string{"worker-a", "worker-b"}},
		{"unknown field key selects nothing", &omev1beta1.Placement{ClusterAffinity: []omev1beta1.ClusterAffinityTerm{{
			MatchFields: []omev1beta1.FieldSelectorRequirement{{Key: "metadata.uid", Operator: omev1beta1.MatchOperatorNotIn}}}}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Candidates(tt.placement, fleet); !slices.Equal(got, tt.want) {
				t.Errorf("Candidates() = %v, want %v", got, tt.want)
			}
		})
	}
}

func copyOf(ingressReady bool, engine, decoder *omev1beta1.ComponentStatus) *omev1beta1.InferenceService {
	status := metav1.ConditionFalse
	if ingressReady {
		status = metav1.ConditionTrue
	}
	return &omev1beta1.InferenceService{Status: omev1beta1.InferenceServiceStatus{
		URL:        "http://example.test",
		Conditions: []metav1.Condition{{Type: omev1beta1.InferenceServiceIngressReady, Status: status, Reason: "Test"}},
		Components: &omev1beta1.ComponentsStatus{Engine: engine, Decoder: decoder},
	}}
}

func TestCopyReplicas(t *testing.T) {
	tests := []struct {
		name string
		copy *omev1beta1.InferenceService
		want Replicas
	}{
		{"engine only", copyOf(true, &omev1beta1.ComponentStatus{DesiredReplicas: 4, ReadyReplicas: 3}, nil), Replicas{4, 3}},
		{"decoder lowers both counts", copyOf(true,
			&omev1beta1.ComponentStatus{DesiredReplicas: 4, ReadyReplicas: 3},
			&omev1beta1.ComponentStatus{DesiredReplicas: 2, ReadyReplicas: 2}), Replicas{2, 2}},
		{"not IngressReady counts no ready replicas", copyOf(false, &omev1beta1.ComponentStatus{DesiredReplicas: 4, ReadyReplicas: 4}, nil), Replicas{4, 0}},
		{"no counts yet", copyOf(true, nil, nil), Replicas{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := CopyReplicas(tt.copy); got != tt.want {
				t.Errorf("CopyReplicas() = %+v, want %+v", got, tt.want)
			}
		})
	}
	t.Run("a decoder in the spec without counts gives zero", func(t *testing.T) {
		c := copyOf(true, &omev1beta1.ComponentStatus{DesiredReplicas: 4, ReadyReplicas: 4}, nil)
		c.Spec.Decoder = &omev1beta1.ComponentSpec{}
		if got := CopyReplicas(c); got != (Replicas{}) {
			t.Errorf("CopyReplicas() = %+v, want zero", got)
		}
	})
}

func TestAddressableAndPhase(t *testing.T) {
	if Addressable(nil) || Addressable(&omev1beta1.InferenceService{}) {
		t.Error("a missing copy or one without url must not be addressable")
	}
	if !Addressable(copyOf(true, nil, nil)) {
		t.Error("a copy with url must be addressable")
	}
	if Phase(0) != omev1beta1.PlacementPhasePending || Phase(2) != omev1beta1.PlacementPhasePlaced {
		t.Error("Phase: want Pending for no homes, Placed otherwise")
	}
}

package trafficmap

import (
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

func TestBuildEntries(t *testing.T) {
	half := resource.MustParse("0.5")
	canonicalHalf := omev1beta1.CapacityFactor("500m")
	in := Input{
		Candidates: 4,
		Homes: homes(
			makeHome("worker-c").replicas(1, 1).passing(),
			makeHome("worker-a").replicas(4, 2),
			makeHome("worker-b").replicas(3, 0).gated(),
		),
		CapacityFactors: map[string]resource.Quantity{"worker-a": half, "worker-z": resource.MustParse("2")},
		AllFailedPolicy: omev1beta1.AllFailedDrain,
	}
	want := []omev1beta1.TrafficMapEntry{
		{
			Cluster: "worker-a", Endpoint: "https://worker-a.example.com", Weight: 1, Healthy: true,
			Capacity: omev1beta1.TrafficMapCapacity{Allocated: 4, Ready: 2, Factor: &canonicalHalf, Source: omev1beta1.CapacitySourceControlPlane},
		},
		{
			Cluster: "worker-b", Endpoint: "https://worker-b.example.com", Weight: 0, Healthy: false,
			Capacity: omev1beta1.TrafficMapCapacity{Allocated: 3, Source: omev1beta1.CapacitySourceControlPlane},
			Probe:    makeHome("x").gated().Probe,
		},
		{
			Cluster: "worker-c", Endpoint: "https://worker-c.example.com", Weight: 1, Healthy: true,
			Capacity: omev1beta1.TrafficMapCapacity{Allocated: 1, Ready: 1, Source: omev1beta1.CapacitySourceControlPlane},
			Probe:    makeHome("x").passing().Probe,
		},
	}
	order := slices.Clone(in.Homes)

	got := Build(in)
	if !equality.Semantic.DeepEqual(got.Entries, want) {
		t.Fatalf("entries:\n got %+v\nwant %+v", got.Entries, want)
	}
	if !slices.EqualFunc(in.Homes, order, func(a, b Home) bool { return a.Cluster == b.Cluster }) {
		t.Errorf("Build reordered its input: %v", in.Homes)
	}
	if got.Entries[1].Probe == in.Homes[2].Probe {
		t.Errorf("entry probe aliases the input probe")
	}
}

func TestBuildNegativeCountsCountAsNone(t *testing.T) {
	got := Build(Input{Candidates: 2, Homes: homes(makeHome("a").replicas(-1, 3), makeHome("b").replicas(2, -2))})
	for _, e := range got.Entries {
		if e.Weight != 0 || e.Capacity.Allocated < 0 || e.Capacity.Ready < 0 {
			t.Errorf("entry %+v", e)
		}
	}
	if h := healthyOf(got.Entries); !slices.Equal(h, []bool{true, false}) {
		t.Errorf("healthy = %v", h)
	}
}

func TestBuildHealthy(t *testing.T) {
	tests := []struct {
		name   string
		home   *homeWrapper
		others []*homeWrapper
		policy omev1beta1.AllFailedPolicy
		want   bool
	}{
		{"ready without a probe", makeHome("a").replicas(1, 1), nil, "", true},
		{"unready without a probe", makeHome("a").replicas(1, 0), nil, "", false},
		{"ready with nothing allocated, capacity is ignored", makeHome("a").replicas(0, 1), nil, "", true},
		{"ready with a passing probe", makeHome("a").replicas(1, 1).passing(), nil, omev1beta1.AllFailedDrain, true},
		{"ready and gated", makeHome("a").replicas(1, 1).gated(), []*homeWrapper{makeHome("b").replicas(1, 1)}, omev1beta1.AllFailedDrain, false},
		{"every home gated under PreserveTraffic still shows the gate",
			makeHome("a").replicas(1, 1).gated(), []*homeWrapper{makeHome("b").replicas(1, 1).gated()}, omev1beta1.AllFailedPreserveTraffic, false},
		{"unready and passing", makeHome("a").replicas(1, 0).passing(), nil, omev1beta1.AllFailedPreserveTraffic, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Build(Input{Candidates: 1 + len(tt.others), Homes: homes(append([]*homeWrapper{tt.home}, tt.others...)...), AllFailedPolicy: tt.policy})
			if got.Entries[0].Healthy != tt.want {
				t.Errorf("healthy = %v, want %v (entry %+v)", got.Entries[0].Healthy, tt.want, got.Entries[0])
			}
		})
	}
}

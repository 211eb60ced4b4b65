package trafficmap

import (
	"testing"

	"k8s.io/utils/ptr"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/capacity"
)

func (w *homeWrapper) ceiling(c capacity.Ceiling) *homeWrapper {
	w.Ceiling = &c
	return w
}

// A capacity ceiling lowers allocated before the weights are computed, and the entry
// records where its count came from.
func TestBuildWithCeilings(t *testing.T) {
	cases := []struct {
		name      string
		homes     []Home
		weights   []int32
		allocated []int32
		sources   []omev1beta1.CapacitySource
		reported  []*int32
		reasons   []string
		routable  string
	}{
		{
			name: "worker-b reports 0 while its copy says 1 ready",
			homes: homes(
				makeHome("worker-a").replicas(1, 1).ceiling(capacity.Ceiling{OK: true, Value: 1}),
				makeHome("worker-b").replicas(1, 1).ceiling(capacity.Ceiling{OK: true, Value: 0}),
			),
			weights:   []int32{1, 0},
			allocated: []int32{1, 0},
			sources:   []omev1beta1.CapacitySource{"ControlPlane", "Endpoint"},
			reported:  []*int32{ptr.To[int32](1), ptr.To[int32](0)},
			reasons:   []string{"", ""},
			routable:  string(omev1beta1.TrafficMapReasonRoutable),
		},
		{
			name: "the fact sheet's example: a non-binding 3 and a binding 1",
			homes: homes(
				makeHome("worker-a").replicas(2, 2).ceiling(capacity.Ceiling{OK: true, Value: 3}),
				makeHome("worker-b").replicas(2, 1).ceiling(capacity.Ceiling{OK: true, Value: 1}),
			),
			weights:   []int32{2, 1},
			allocated: []int32{2, 1},
			sources:   []omev1beta1.CapacitySource{"ControlPlane", "Endpoint"},
			reported:  []*int32{ptr.To[int32](3), ptr.To[int32](1)},
			reasons:   []string{"", ""},
			routable:  string(omev1beta1.TrafficMapReasonRoutable),
		},
		{
			name: "no ceiling: the ready count, with the reason",
			homes: homes(
				makeHome("worker-a").replicas(2, 2).ceiling(capacity.Ceiling{Reason: "capacity endpoint returned HTTP 404"}),
				makeHome("worker-b").replicas(1, 1),
			),
			weights:   []int32{2, 1},
			allocated: []int32{2, 1},
			sources:   []omev1beta1.CapacitySource{"ControlPlane", "ControlPlane"},
			reported:  []*int32{nil, nil},
			reasons:   []string{"capacity endpoint returned HTTP 404", ""},
			routable:  string(omev1beta1.TrafficMapReasonRoutable),
		},
		{
			name: "every home capped to zero",
			homes: homes(
				makeHome("worker-a").replicas(2, 2).ceiling(capacity.Ceiling{OK: true, Value: 0}),
			),
			weights:   []int32{0},
			allocated: []int32{0},
			sources:   []omev1beta1.CapacitySource{"Endpoint"},
			reported:  []*int32{ptr.To[int32](0)},
			reasons:   []string{""},
			routable:  string(omev1beta1.TrafficMapReasonNoRoutableCapacity),
		},
		{
			name: "a zero report zeroes the weight even when PreserveTraffic sets gates aside",
			homes: homes(
				makeHome("worker-a").replicas(1, 1).gated().ceiling(capacity.Ceiling{OK: true, Value: 0}),
				makeHome("worker-b").replicas(1, 1).gated(),
			),
			weights:   []int32{0, 1},
			allocated: []int32{0, 1},
			sources:   []omev1beta1.CapacitySource{"Endpoint", "ControlPlane"},
			reported:  []*int32{ptr.To[int32](0), nil},
			reasons:   []string{"", ""},
			routable:  string(omev1beta1.TrafficMapReasonAllHomesProbeFailed),
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := Build(Input{Candidates: len(tc.homes), Homes: tc.homes, AllFailedPolicy: omev1beta1.AllFailedPreserveTraffic})
			for i, e := range res.Entries {
				c := e.Capacity
				if e.Weight != tc.weights[i] || c.Allocated != tc.allocated[i] || c.Source != tc.sources[i] ||
					!ptrEq(c.Reported, tc.reported[i]) || c.FallbackReason != tc.reasons[i] {
					t.Errorf("entry %s: weight %d capacity %+v (reported %v); want weight %d allocated %d source %s reported %v reason %q",
						e.Cluster, e.Weight, c, deref(c.Reported), tc.weights[i], tc.allocated[i], tc.sources[i], deref(tc.reported[i]), tc.reasons[i])
				}
			}
			if string(res.Routable.Reason) != tc.routable {
				t.Errorf("Routable reason = %s, want %s", res.Routable.Reason, tc.routable)
			}
		})
	}
}

func ptrEq(a, b *int32) bool { return a == nil && b == nil || a != nil && b != nil && *a == *b }

func deref(p *int32) any {
	if p == nil {
		return nil
	}
	return *p
}

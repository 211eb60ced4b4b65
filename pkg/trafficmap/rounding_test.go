package trafficmap

import (
	"math"
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

// TestBuildRoundsLikeOME pins the two places where weights are rounded to what OME's own
// weight function does, so that the same inputs give the same map from either. Every home
// is named a, b, c and has as many allocated as ready replicas. The comment on a case gives
// what exact factors or rounding half up (and reducing the scaled table again) would write.
func TestBuildRoundsLikeOME(t *testing.T) {
	const maxInt32 = math.MaxInt32
	tests := []struct {
		name     string
		replicas []int32
		factors  map[string]resource.Quantity
		want     []int32
	}{
		// Rule 1: a factor is held in thousandths, and anything finer rounds up.
		{
			name:     "0.0005 counts as 0.001",
			replicas: []int32{1, 1},
			factors:  factors("a", "0.0005"),
			want:     []int32{1, 1000}, // exact: 1 and 2000
		},
		{
			name:     "0.0001 counts as 0.001",
			replicas: []int32{1, 1},
			factors:  factors("a", "100u"),
			want:     []int32{1, 1000}, // exact: 1 and 10000
		},
		{
			name:     "0.0015 counts as 0.002",
			replicas: []int32{1, 1},
			factors:  factors("a", "0.0015"),
			want:     []int32{1, 500}, // exact: 3 and 2000
		},
		{
			name:     "1.0001 counts as 1.001",
			replicas: []int32{1, 1},
			factors:  factors("a", "1.0001"),
			want:     []int32{1001, 1000}, // exact: 10001 and 10000
		},
		{
			name:     "the factor is rounded before it multiplies the replicas",
			replicas: []int32{3, 1},
			factors:  factors("a", "0.0005"),
			want:     []int32{3, 1000}, // exact: 3 and 2000; rounding 3 x 0.0005 instead: 1 and 500
		},
		{
			name:     "two factors below a thousandth both count as one thousandth",
			replicas: []int32{1, 1},
			factors:  factors("a", "0.0004", "b", "0.0006"),
			want:     []int32{1, 1}, // exact: 2 and 3
		},
		{
			name:     "a nano factor counts as a thousandth",
			replicas: []int32{1, 1},
			factors:  factors("a", "1n"),
			want:     []int32{1, 1000}, // exact: 1 and 1000000 after scaling
		},
		{
			name:     "a micro factor just under a thousandth counts as one",
			replicas: []int32{1, 1},
			factors:  factors("a", "999u"),
			want:     []int32{1, 1000}, // exact: 999 and 1000000
		},
		{
			name:     "whole thousandths are not rounded",
			replicas: []int32{1, 1},
			factors:  factors("a", "0.333"),
			want:     []int32{333, 1000},
		},
		// Rule 2: past MaxWeight every positive weight is scaled so that the largest is
		// exactly MaxWeight, each rounded up, and the result is written as it is.
		{
			name:     "a share of 1.33 rounds up to 2",
			replicas: []int32{3000001, 4},
			want:     []int32{omev1beta1.MaxWeight, 2}, // half up: 1
		},
		{
			name:     "a share of 6.1 rounds up to 7",
			replicas: []int32{10000000, 61},
			want:     []int32{omev1beta1.MaxWeight, 7}, // half up, then reduced: 500000 and 3
		},
		{
			name:     "scaled weights are not reduced again",
			replicas: []int32{2000000, 3},
			want:     []int32{omev1beta1.MaxWeight, 2}, // half up, then reduced: 500000 and 1
		},
		{
			name:     "nearly equal homes both get MaxWeight",
			replicas: []int32{maxInt32, maxInt32 - 1},
			want:     []int32{omev1beta1.MaxWeight, omev1beta1.MaxWeight}, // half up, then reduced: 1 and 1
		},
		{
			name:     "three homes, the middle share rounds up",
			replicas: []int32{2500000, 1250001, 1},
			want:     []int32{omev1beta1.MaxWeight, 500001, 1}, // half up: 500000 in the middle
		},
		{
			name:     "a share below 1 rounds up to 1, so no home with capacity is drained",
			replicas: []int32{3000000, 1},
			want:     []int32{omev1beta1.MaxWeight, 1},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ws []*homeWrapper
			for i, n := range tt.replicas {
				ws = append(ws, makeHome(string(rune('a'+i))).replicas(n, n))
			}
			got := Build(Input{Candidates: len(ws), Homes: homes(ws...), CapacityFactors: tt.factors})
			if w := weightsOf(got.Entries); !slices.Equal(w, tt.want) {
				t.Errorf("weights = %v, want %v", w, tt.want)
			}
		})
	}
}

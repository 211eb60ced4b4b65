package trafficmap

import (
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"
)

func TestValidateCapacityFactors(t *testing.T) {
	tests := []struct {
		name    string
		factors map[string]resource.Quantity
		want    []string
	}{
		{name: "none"},
		{name: "all positive", factors: factors("worker-a", "0.5", "worker-b", "1n", "worker-c", "1E")},
		{name: "zero", factors: factors("worker-a", "1", "worker-b", "0"),
			want: []string{`spec.routing.capacityFactors["worker-b"] must be positive, got "0"`}},
		{name: "every bad factor, in cluster order", factors: factors("worker-c", "-500m", "worker-a", "0.0", "worker-b", "2"),
			want: []string{
				`spec.routing.capacityFactors["worker-a"] must be positive, got "0"`,
				`spec.routing.capacityFactors["worker-c"] must be positive, got "-500m"`,
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, err := range ValidateCapacityFactors(tt.factors) {
				got = append(got, err.Error())
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %q\nwant %q", got, tt.want)
			}
		})
	}
}

package trafficmap

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

func TestObservedCurrent(t *testing.T) {
	cases := []struct {
		name                        string
		generation, route, observed int64
		want                        bool
	}{
		{"at the generation", 5, 5, 5, true},
		{"at the route's last change, probe rounds since", 9, 4, 4, true},
		{"between the route's change and now", 9, 4, 7, true},
		{"before the route's last change", 9, 4, 3, false},
		{"no routeGeneration: only the generation", 9, 0, 8, false},
		{"no routeGeneration, at the generation", 9, 0, 9, true},
		{"a routeGeneration past the generation is ignored", 5, 7, 4, false},
		{"past the generation", 5, 5, 6, false},
		{"nothing observed", 5, 5, 0, false},
	}
	for _, c := range cases {
		tm := &omev1beta1.TrafficMap{ObjectMeta: metav1.ObjectMeta{Generation: c.generation},
			Status: omev1beta1.TrafficMapStatus{RouteGeneration: c.route}}
		if got := ObservedCurrent(c.observed, tm); got != c.want {
			t.Errorf("%s: ObservedCurrent(%d) = %v, want %v", c.name, c.observed, got, c.want)
		}
	}
}

package routing

import (
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"k8s.io/apimachinery/pkg/types"
)

func TestCapacityFallbackGauge(t *testing.T) {
	key := types.NamespacedName{Namespace: "qwen3-0-6b", Name: "qwen3-0-6b"}
	other := types.NamespacedName{Namespace: "qwen3-0-6b", Name: "other"}
	setCapacityFallbackHomes(key, 1)
	setCapacityFallbackHomes(other, 0)
	const header = `# HELP ome_trafficmap_capacity_fallback_homes Number of homes currently using control-plane allocation because configured endpoint capacity did not produce a usable ceiling.
# TYPE ome_trafficmap_capacity_fallback_homes gauge
`
	want := header + `ome_trafficmap_capacity_fallback_homes{namespace="qwen3-0-6b",trafficmap="other"} 0
ome_trafficmap_capacity_fallback_homes{namespace="qwen3-0-6b",trafficmap="qwen3-0-6b"} 1
`
	if err := testutil.CollectAndCompare(capacityFallbackHomes, strings.NewReader(want)); err != nil {
		t.Error(err)
	}
	// A service that stops being polled loses its series, and only its own.
	forgetCapacityMetrics(key)
	want = header + `ome_trafficmap_capacity_fallback_homes{namespace="qwen3-0-6b",trafficmap="other"} 0
`
	if err := testutil.CollectAndCompare(capacityFallbackHomes, strings.NewReader(want)); err != nil {
		t.Error(err)
	}
	forgetCapacityMetrics(other)
}

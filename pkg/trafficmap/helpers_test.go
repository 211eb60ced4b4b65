package trafficmap

import (
	"k8s.io/apimachinery/pkg/api/resource"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

const testDigest = "sha256:0000000000000000000000000000000000000000000000000000000000000000"

// homeWrapper builds a Home: makeHome("a").replicas(2, 2).gated().obj().
type homeWrapper struct{ Home }

func makeHome(cluster string) *homeWrapper {
	return &homeWrapper{Home{Cluster: cluster, Endpoint: "https://" + cluster + ".example.com"}}
}

func (w *homeWrapper) replicas(allocated, ready int32) *homeWrapper {
	w.Allocated, w.Ready = allocated, ready
	return w
}

// passing records a probe that has run and does not gate the home.
func (w *homeWrapper) passing() *homeWrapper {
	w.Probe = &omev1beta1.TrafficMapProbe{PolicyDigest: testDigest, Result: omev1beta1.ProbePassing, Message: "HTTP 200"}
	return w
}

// gated records a probe that gates the home.
func (w *homeWrapper) gated() *homeWrapper {
	w.Probe = &omev1beta1.TrafficMapProbe{PolicyDigest: testDigest, Result: omev1beta1.ProbeFailing,
		Message: "HTTP 503", Gated: true, ConsecutiveFailures: 3}
	return w
}

func (w *homeWrapper) obj() Home { return w.Home }

func homes(ws ...*homeWrapper) []Home {
	out := make([]Home, len(ws))
	for i, w := range ws {
		out[i] = w.obj()
	}
	return out
}

// factors parses cluster/quantity pairs: factors("a", "1.5", "b", "2").
func factors(pairs ...string) map[string]resource.Quantity {
	out := map[string]resource.Quantity{}
	for i := 0; i < len(pairs); i += 2 {
		out[pairs[i]] = resource.MustParse(pairs[i+1])
	}
	return out
}

func weightsOf(entries []omev1beta1.TrafficMapEntry) []int32 {
	out := make([]int32, len(entries))
	for i, e := range entries {
		out[i] = e.Weight
	}
	return out
}

func healthyOf(entries []omev1beta1.TrafficMapEntry) []bool {
	out := make([]bool, len(entries))
	for i, e := range entries {
		out[i] = e.Healthy
	}
	return out
}

// refused marks the home as refused by the operator, for reason.
func (w *homeWrapper) refused(reason string) *homeWrapper {
	w.Refused = reason
	return w
}

package placement

import (
	"k8s.io/apimachinery/pkg/api/meta"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

// Replicas are a copy's allocated (admitted) and ready replica counts as routing sees them.
type Replicas struct {
	Allocated int32
	Ready     int32
}

// CopyReplicas reads a workload cluster's copy of a service. With a decoder, each count is
// the lower of the engine's and the decoder's, since a request needs both. A copy that is
// not IngressReady counts no ready replicas: traffic cannot reach them.
func CopyReplicas(copy *omev1beta1.InferenceService) Replicas {
	var engine, decoder omev1beta1.ComponentStatus
	hasDecoder := copy.Spec.Decoder != nil
	if cs := copy.Status.Components; cs != nil {
		if cs.Engine != nil {
			engine = *cs.Engine
		}
		if cs.Decoder != nil {
			decoder = *cs.Decoder
			hasDecoder = true
		}
	}
	r := Replicas{Allocated: engine.DesiredReplicas, Ready: engine.ReadyReplicas}
	if hasDecoder {
		r.Allocated = min(r.Allocated, decoder.DesiredReplicas)
		r.Ready = min(r.Ready, decoder.ReadyReplicas)
	}
	if !meta.IsStatusConditionTrue(copy.Status.Conditions, omev1beta1.InferenceServiceIngressReady) {
		r.Ready = 0
	}
	return r
}

// Addressable reports whether a copy reports an endpoint, which is what makes its cluster
// a home.
func Addressable(copy *omev1beta1.InferenceService) bool {
	return copy != nil && copy.Status.URL != ""
}

// Phase is Placed when at least one candidate holds an addressable copy.
func Phase(homes int) omev1beta1.PlacementPhase {
	if homes > 0 {
		return omev1beta1.PlacementPhasePlaced
	}
	return omev1beta1.PlacementPhasePending
}

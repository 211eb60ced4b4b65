package v1beta1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ProbeMode says whether a routing probe's gates move traffic.
// +kubebuilder:validation:Enum=Enforce;Shadow
type ProbeMode string

const (
	// ProbeModeEnforce gates homes: a gated home gets weight 0. A probe without a mode
	// enforces.
	ProbeModeEnforce ProbeMode = "Enforce"
	// ProbeModeShadow records what the probe would do (wouldGate) without moving traffic,
	// for trying a probe out on a fleet.
	ProbeModeShadow ProbeMode = "Shadow"
)

// Bounds of ProbeFlapDamping.maxFactor.
const (
	MinDampingFactor = 2
	MaxDampingFactor = 64
)

// ProbeFlapDamping holds back a home that keeps failing and recovering. A home gated again
// less than window after its gate last lifted needs successThreshold x 2^k passes in a row
// to lift, where k counts such quick re-gates in a row, and the factor 2^k is capped at
// maxFactor. A full window without a gate after a lift brings the factor back to 1.
type ProbeFlapDamping struct {
	// window is how soon after a lift a new gate counts as a flap, such as "10m". It must
	// be positive and at least the probe's period.
	// +required
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ns|us|ms|s|m|h))+$`
	// +kubebuilder:validation:MaxLength=32
	Window *metav1.Duration `json:"window,omitempty"`

	// maxFactor caps the multiplier of successThreshold, from 2 to 64.
	// +required
	// +kubebuilder:validation:Minimum=2
	// +kubebuilder:validation:Maximum=64
	MaxFactor *int32 `json:"maxFactor,omitempty"`
}

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

// Bounds of ProbePassiveGate.
const (
	MaxPassiveGateMinRequests = 1000000
)

// ProbePassiveGate gates a home on what the global gateway saw of the service's real
// requests to it, read from the installation's traffic signal (routing.trafficSignal): a
// home whose failed requests (5xx answers and connection errors) reach failurePercent of at
// least minRequests over the signal's window is held out for an ejection time, and lifts
// after it only while its probe passes. It starts in Shadow, which records wouldGate and
// moves nothing (docs/concepts/passive-gate.md).
//
// +kubebuilder:validation:XValidation:rule="!has(self.baseEjectionTime) || duration(self.baseEjectionTime) > duration('0s')",message="passiveGate.baseEjectionTime must be positive"
// +kubebuilder:validation:XValidation:rule="!has(self.maxEjectionTime) || duration(self.maxEjectionTime) >= (has(self.baseEjectionTime) ? duration(self.baseEjectionTime) : duration('30s'))",message="passiveGate.maxEjectionTime must be at least passiveGate.baseEjectionTime (30s when left out)"
type ProbePassiveGate struct {
	// mode is Shadow (when left out) or Enforce. A Shadow passive gate records the gate it
	// would set (wouldGate) and moves no traffic.
	// +optional
	Mode ProbeMode `json:"mode,omitempty"`

	// failurePercent is the share of failed requests over the window, from 1 to 100, at
	// which a home is gated. Only 5xx answers and connection errors count as failed,
	// never 4xx (429 included).
	// +required
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100
	FailurePercent *int32 `json:"failurePercent,omitempty"`

	// minRequests is the fewest requests over the window on which the share is trusted;
	// below it nothing is gated. 20 when left out.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=1000000
	MinRequests *int32 `json:"minRequests,omitempty"`

	// maxEjectionPercent caps the share of the service's capacity, from 1 to 100, that
	// passive gates hold out at once; a home past the cap stays in traffic and its entry
	// says so. 50 when left out.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100
	MaxEjectionPercent *int32 `json:"maxEjectionPercent,omitempty"`

	// baseEjectionTime is how long a first passive gate holds a home out, such as "30s";
	// each gate in a row adds as much again, up to maxEjectionTime. 30s when left out.
	// +optional
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ns|us|ms|s|m|h))+$`
	// +kubebuilder:validation:MaxLength=32
	BaseEjectionTime *metav1.Duration `json:"baseEjectionTime,omitempty"`

	// maxEjectionTime caps the ejection time, such as "5m". 5m when left out.
	// +optional
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ns|us|ms|s|m|h))+$`
	// +kubebuilder:validation:MaxLength=32
	MaxEjectionTime *metav1.Duration `json:"maxEjectionTime,omitempty"`
}

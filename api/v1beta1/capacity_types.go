package v1beta1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// RoutingCapacitySpec is a poll that asks each home of a service how many replicas it can
// serve now; a home's allocated replicas are lowered to the answer, never raised. It has
// no defaults: an enabled poll sets every field but options.
//
// +kubebuilder:validation:XValidation:rule="!(has(self.disabled) && self.disabled) || !(has(self.path) || has(self.method) || has(self.format) || has(self.options) || has(self.period) || has(self.timeout) || has(self.samples) || has(self.quorum) || has(self.maxAge))",message="disabled must not be combined with capacity configuration fields."
// +kubebuilder:validation:XValidation:rule="(has(self.disabled) && self.disabled) || (has(self.path) && has(self.method) && has(self.format) && has(self.period) && has(self.timeout) && has(self.samples) && has(self.quorum) && has(self.maxAge))",message="an enabled capacity poll must specify path, method, format, period, timeout, samples, quorum, and maxAge."
// +kubebuilder:validation:XValidation:rule="!has(self.period) || duration(self.period) > duration('0s')",message="period must be positive."
// +kubebuilder:validation:XValidation:rule="!has(self.timeout) || duration(self.timeout) > duration('0s')",message="timeout must be positive."
// +kubebuilder:validation:XValidation:rule="!has(self.period) || !has(self.timeout) || duration(self.timeout) < duration(self.period)",message="timeout must be shorter than period."
// +kubebuilder:validation:XValidation:rule="!has(self.period) || !has(self.maxAge) || duration(self.maxAge) >= duration(self.period)",message="maxAge must be at least period."
// +kubebuilder:validation:XValidation:rule="!has(self.samples) || !has(self.quorum) || self.quorum <= self.samples",message="quorum must not exceed samples."
type RoutingCapacitySpec struct {
	// disabled turns capacity polling off for this service, whatever the installation
	// sets. It cannot be combined with any other field.
	// +optional
	Disabled bool `json:"disabled,omitempty"`

	// path is joined to the home's endpoint to form the poll URL. It starts with "/".
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=2048
	// +kubebuilder:validation:Pattern=`^/`
	Path string `json:"path,omitempty"`

	// method is the HTTP method of the poll: GET, HEAD or POST. A HEAD answer has no
	// body, so every HEAD poll falls back to the admitted replicas.
	// +optional
	Method ProbeMethod `json:"method,omitempty"`

	// format names how the answer is read. This build knows Report.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=64
	Format string `json:"format,omitempty"`

	// options are settings of the format. Report takes none.
	// +optional
	// +kubebuilder:validation:MaxProperties=32
	Options map[string]string `json:"options,omitempty"`

	// period is how often each home is polled, such as "10s". It must be at least the
	// installation's routing.observer.minPeriod.
	// +optional
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ns|us|ms|s|m|h))+$`
	// +kubebuilder:validation:MaxLength=32
	Period *metav1.Duration `json:"period,omitempty"`

	// timeout is how long one poll may take once it has a request slot. It must be
	// shorter than period.
	// +optional
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ns|us|ms|s|m|h))+$`
	// +kubebuilder:validation:MaxLength=32
	Timeout *metav1.Duration `json:"timeout,omitempty"`

	// samples is how many accepted reports a home keeps. It must not exceed the
	// installation's routing.observer.maxSamples.
	// +optional
	// +kubebuilder:validation:Minimum=1
	Samples *int32 `json:"samples,omitempty"`

	// quorum is which of the kept reports is the ceiling: the quorum-th smallest, so a
	// single low report does not cut traffic unless quorum is 1. It must not exceed samples.
	// +optional
	// +kubebuilder:validation:Minimum=1
	Quorum *int32 `json:"quorum,omitempty"`

	// maxAge is how long a report counts after its observedAt. It must be at least
	// period and, with quorum above 1, span quorum whole periods.
	// +optional
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ns|us|ms|s|m|h))+$`
	// +kubebuilder:validation:MaxLength=32
	MaxAge *metav1.Duration `json:"maxAge,omitempty"`
}

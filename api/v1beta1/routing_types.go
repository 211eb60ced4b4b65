package v1beta1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ProbeMethod is the HTTP method a routing probe sends.
// +kubebuilder:validation:Enum=GET;HEAD;POST
type ProbeMethod string

// The methods a routing probe may send.
const (
	ProbeMethodGet  ProbeMethod = "GET"
	ProbeMethodHead ProbeMethod = "HEAD"
	ProbeMethodPost ProbeMethod = "POST"
)

// AllFailedPolicy says what happens to a service's traffic when every one of its homes is
// gated by the probe.
// +kubebuilder:validation:Enum=PreserveTraffic;Drain
type AllFailedPolicy string

const (
	// AllFailedPreserveTraffic ignores the gates and weights the homes as if there were no
	// probe, because a failure on the prober's side can fail every home at once.
	AllFailedPreserveTraffic AllFailedPolicy = "PreserveTraffic"
	// AllFailedDrain leaves every weight at zero.
	AllFailedDrain AllFailedPolicy = "Drain"
)

// HTTPStatus is an HTTP status code a probe can receive.
// +kubebuilder:validation:Minimum=100
// +kubebuilder:validation:Maximum=599
type HTTPStatus int32

// Routing holds a service's multi-cluster routing settings.
type Routing struct {
	// enabled opts the service in or out of routing. Unset inherits the installation's
	// setting; false takes the service out of routing and deletes its TrafficMap; true
	// cannot turn on routing that the installation has off.
	// +optional
	Enabled *bool `json:"enabled,omitempty"`

	// probe is the service's own routing health probe. It replaces the installation's
	// probe as a whole; `disabled: true` turns probing off for this service.
	// +optional
	Probe *RoutingProbe `json:"probe,omitempty"`

	// capacity is the service's own capacity poll. It replaces the installation's poll as
	// a whole; `disabled: true` turns polling off for this service.
	// +optional
	Capacity *RoutingCapacitySpec `json:"capacity,omitempty"`

	// capacityFactors multiplies a cluster's servable replicas when weights are computed,
	// keyed by WorkloadCluster name. Each factor is a number above 0 and at most 1000,
	// written as an integer or a string of at most 32 characters such as "1.5" or "500m"
	// (an exponent has at most two digits). Factors count in thousandths: a finer one
	// rounds up ("0.0005" counts as 0.001).
	// +optional
	// +kubebuilder:validation:MaxProperties=256
	CapacityFactors map[string]CapacityFactor `json:"capacityFactors,omitempty"`

	// failover orders the service's homes in tiers, the first preferred: the next tier
	// takes traffic only as the ones before it lose healthy capacity. It replaces the
	// installation's routing.failover as a whole; `disabled: true` turns it off for this
	// service.
	// +optional
	Failover *RoutingFailover `json:"failover,omitempty"`

	// loadBalancing lets the model servers' load move the service's weights. It replaces
	// the installation's routing.loadBalancing as a whole; `disabled: true` turns it off
	// for this service.
	// +optional
	LoadBalancing *RoutingLoadBalancing `json:"loadBalancing,omitempty"`

	// publisher holds the service's own options for the publisher, merged over the
	// installation's routing.publisher.options.
	// +optional
	Publisher *RoutingPublisherSpec `json:"publisher,omitempty"`
}

// RoutingPublisherSpec is a service's publisher settings. The built-in publisher
// (gatewayapi) accepts no options: a service that sets any is Published False,
// InvalidOptions, and keeps the route it had. retry and timeouts each replace the
// installation's routing.publisher block of the same name as a whole.
//
// +kubebuilder:validation:XValidation:rule="!has(self.retry) || !has(self.retry.perTryTimeout) || !has(self.timeouts) || !has(self.timeouts.request) || duration(self.retry.perTryTimeout) <= duration(self.timeouts.request)",message="retry.perTryTimeout must not be longer than timeouts.request"
type RoutingPublisherSpec struct {
	// retry is the service's retry on the global route (docs/concepts/retries.md);
	// `disabled: true` turns the installation's off for this service.
	// +optional
	Retry *PublisherRetry `json:"retry,omitempty"`

	// timeouts bounds the service's requests on the global route.
	// +optional
	Timeouts *PublisherTimeouts `json:"timeouts,omitempty"`

	// options are publisher-specific options, at most 32, each key 1 to 128 characters and
	// each value 1 to 4096.
	// +optional
	// +kubebuilder:validation:MaxProperties=32
	// +kubebuilder:validation:XValidation:rule="self.all(k, size(k) >= 1 && size(k) <= 128 && size(self[k]) >= 1 && size(self[k]) <= 4096)",message="publisher option keys must contain 1-128 characters and values must contain 1-4096 characters."
	Options map[string]string `json:"options,omitempty"`
}

// RoutingProbe is an end-to-end HTTP probe of a service's endpoint on each of its homes.
// It has no defaults: an enabled probe sets all nine fields. Four more are optional, and
// leaving them out keeps the probe as the nine describe it: mode, flapDamping, rampUp
// (docs/concepts/probe-extensions.md) and passiveGate (docs/concepts/passive-gate.md).
//
// +kubebuilder:validation:XValidation:rule="!(has(self.disabled) && self.disabled) || !(has(self.path) || has(self.method) || has(self.acceptStatuses) || has(self.gateStatuses) || has(self.period) || has(self.timeout) || has(self.failureThreshold) || has(self.successThreshold) || has(self.allFailedPolicy) || has(self.mode) || has(self.flapDamping) || has(self.rampUp) || has(self.passiveGate))",message="disabled must not be combined with probe configuration fields"
// +kubebuilder:validation:XValidation:rule="(has(self.disabled) && self.disabled) || (has(self.path) && has(self.method) && has(self.acceptStatuses) && has(self.gateStatuses) && has(self.period) && has(self.timeout) && has(self.failureThreshold) && has(self.successThreshold) && has(self.allFailedPolicy))",message="an enabled probe must specify path, method, acceptStatuses, gateStatuses, period, timeout, failureThreshold, successThreshold, and allFailedPolicy"
// +kubebuilder:validation:XValidation:rule="!has(self.period) || duration(self.period) > duration('0s')",message="period must be positive"
// +kubebuilder:validation:XValidation:rule="!has(self.timeout) || duration(self.timeout) > duration('0s')",message="timeout must be positive"
// +kubebuilder:validation:XValidation:rule="!has(self.period) || !has(self.timeout) || duration(self.timeout) < duration(self.period)",message="timeout must be shorter than period"
// +kubebuilder:validation:XValidation:rule="!has(self.gateStatuses) || !self.gateStatuses.exists(s, s == 401 || s == 403 || s == 429)",message="gateStatuses must not contain 401, 403, or 429"
// +kubebuilder:validation:XValidation:rule="!has(self.acceptStatuses) || !has(self.gateStatuses) || !self.acceptStatuses.exists(s, s in self.gateStatuses)",messageExpression="'status %d is in both acceptStatuses and gateStatuses'.format([self.acceptStatuses.filter(s, s in self.gateStatuses)[0]])"
// +kubebuilder:validation:XValidation:rule="!has(self.rampUp) || duration(self.rampUp) > duration('0s')",message="rampUp must be positive"
// +kubebuilder:validation:XValidation:rule="!has(self.rampUp) || !has(self.period) || duration(self.rampUp) >= duration(self.period)",message="rampUp must be at least period"
// +kubebuilder:validation:XValidation:rule="!has(self.flapDamping) || !has(self.flapDamping.window) || duration(self.flapDamping.window) > duration('0s')",message="flapDamping.window must be positive"
// +kubebuilder:validation:XValidation:rule="!has(self.flapDamping) || !has(self.flapDamping.window) || !has(self.period) || duration(self.flapDamping.window) >= duration(self.period)",message="flapDamping.window must be at least period"
type RoutingProbe struct {
	// disabled turns probing off for this service, whatever the installation sets. It
	// cannot be combined with any other field.
	// +optional
	Disabled bool `json:"disabled,omitempty"`

	// path is appended to the home's endpoint to form the probe URL. It starts with "/"
	// and has no "." or ".." segment before its query, plain or percent-encoded, so that
	// no server on the way can resolve it out of the endpoint's prefix.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=2048
	// +kubebuilder:validation:Pattern=`^/`
	// +kubebuilder:validation:XValidation:rule=`!self.matches(r'^[^?#]*(/|\\|%2[fF]|%5[cC])(\.|%2[eE]){1,2}([/\\;?#]|%2[fF]|%5[cC]|$)')`,message="path must not contain a '.' or '..' segment, plain or percent-encoded"
	Path string `json:"path,omitempty"`

	// method is the HTTP method of the probe: GET, HEAD or POST.
	// +optional
	Method ProbeMethod `json:"method,omitempty"`

	// acceptStatuses are the HTTP statuses that count as Passing.
	// +optional
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=500
	AcceptStatuses []HTTPStatus `json:"acceptStatuses,omitempty"`

	// gateStatuses are the HTTP statuses that count as Failing. They must not overlap
	// acceptStatuses and must not contain 401, 403 or 429, which mean the endpoint is up
	// but busy or wants credentials.
	// +optional
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=500
	GateStatuses []HTTPStatus `json:"gateStatuses,omitempty"`

	// period is how often each home is probed, such as "10s". It must be positive and at
	// least the installation's routing.observer.minPeriod.
	// +optional
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ns|us|ms|s|m|h))+$`
	// +kubebuilder:validation:MaxLength=32
	Period *metav1.Duration `json:"period,omitempty"`

	// timeout is how long one attempt may take once it has a request slot. It must be
	// positive and shorter than period.
	// +optional
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ns|us|ms|s|m|h))+$`
	// +kubebuilder:validation:MaxLength=32
	Timeout *metav1.Duration `json:"timeout,omitempty"`

	// failureThreshold is how many Failing results in a row gate a home.
	// +optional
	// +kubebuilder:validation:Minimum=1
	FailureThreshold *int32 `json:"failureThreshold,omitempty"`

	// successThreshold is how many Passing results in a row lift a home's gate.
	// +optional
	// +kubebuilder:validation:Minimum=1
	SuccessThreshold *int32 `json:"successThreshold,omitempty"`

	// allFailedPolicy says what happens when every home is gated: PreserveTraffic weights
	// the homes as if there were no probe, Drain leaves every weight at zero.
	// +optional
	AllFailedPolicy AllFailedPolicy `json:"allFailedPolicy,omitempty"`

	// mode is Enforce (when left out) or Shadow. A Shadow probe runs and records its
	// results, counts and the gate it would set (wouldGate), but weights, healthy and
	// Routable are as if there were no probe. The policy digest leaves mode out, so a
	// switch between the two keeps the counts and gates.
	// +optional
	Mode ProbeMode `json:"mode,omitempty"`

	// flapDamping makes a home that is gated again soon after its gate lifted need more
	// passes to lift the next time.
	// +optional
	FlapDamping *ProbeFlapDamping `json:"flapDamping,omitempty"`

	// rampUp is how long a home whose gate lifted takes to grow back to its full weight,
	// one step per probe round at most, such as "1m". It must be at least period.
	// +optional
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ns|us|ms|s|m|h))+$`
	// +kubebuilder:validation:MaxLength=32
	RampUp *metav1.Duration `json:"rampUp,omitempty"`

	// passiveGate gates a home on the failed share of its real requests, as the
	// installation's traffic signal reads them from the global gateway's counters; it is
	// inert without one. Like mode, it is left out of the policy digest.
	// +optional
	PassiveGate *ProbePassiveGate `json:"passiveGate,omitempty"`
}

package v1beta1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The bounds of a retry setting; pkg/retry holds the same numbers for the installation's.
const (
	// MaxRetryAttempts is the most retries a request may get after its first try: each one
	// can cost a model server a whole completion.
	MaxRetryAttempts = 5
	// MaxRetryCodes is how many statuses a retry setting may list.
	MaxRetryCodes = 100
)

// PublisherRetry asks the global gateway to send a failed request again, to another
// cluster where the gateway can choose one, before the client sees the failure
// (docs/concepts/retries.md). A request is never retried once its answer has started
// to reach the client, and never on a 4xx answer.
//
// +kubebuilder:validation:XValidation:rule="!(has(self.disabled) && self.disabled) || !(has(self.attempts) || has(self.codes) || has(self.connectionFailures) || has(self.backoff) || has(self.perTryTimeout) || has(self.budgetPercent))",message="disabled must not be combined with other retry fields"
// +kubebuilder:validation:XValidation:rule="(has(self.disabled) && self.disabled) || has(self.attempts)",message="an enabled retry must specify attempts"
// +kubebuilder:validation:XValidation:rule="(has(self.disabled) && self.disabled) || (has(self.codes) && size(self.codes) > 0) || !has(self.connectionFailures) || self.connectionFailures",message="an enabled retry must retry connectionFailures, codes, or both"
// +kubebuilder:validation:XValidation:rule="!has(self.codes) || self.codes.all(c, c >= 500 && c <= 599)",message="codes must be 5xx statuses (500-599): a 4xx answer is never retried"
// +kubebuilder:validation:XValidation:rule="!has(self.backoff) || duration(self.backoff) > duration('0s')",message="backoff must be positive"
// +kubebuilder:validation:XValidation:rule="!has(self.perTryTimeout) || duration(self.perTryTimeout) > duration('0s')",message="perTryTimeout must be positive"
type PublisherRetry struct {
	// disabled turns the installation's retry off for this service. It cannot be combined
	// with any other field.
	// +optional
	Disabled bool `json:"disabled,omitempty"`

	// attempts is how many times a failed request may be sent again after its first try,
	// 1 to 5.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=5
	Attempts *int32 `json:"attempts,omitempty"`

	// codes are the 5xx answers that are retried, such as 503. A 4xx answer is the
	// client's and is never retried.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=100
	Codes []HTTPStatus `json:"codes,omitempty"`

	// connectionFailures retries a request whose connection to a cluster failed before
	// the request was sent (refused, reset, timed out). True when left out.
	// +optional
	ConnectionFailures *bool `json:"connectionFailures,omitempty"`

	// backoff is the wait before a retry, such as "100ms", for gateways that wait
	// (haproxy retries at once on another server).
	// +optional
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ns|us|ms|s|m|h))+$`
	// +kubebuilder:validation:MaxLength=32
	Backoff *metav1.Duration `json:"backoff,omitempty"`

	// perTryTimeout is how long one try may wait for the cluster's answer before it fails
	// (and may be retried), such as "30s". It is the route's timeouts.backendRequest.
	// +optional
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ns|us|ms|s|m|h))+$`
	// +kubebuilder:validation:MaxLength=32
	PerTryTimeout *metav1.Duration `json:"perTryTimeout,omitempty"`

	// budgetPercent caps retries at this share of the route's recent requests, 1 to 100,
	// so that retries cannot multiply an overload. Left out, only attempts bounds them.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100
	BudgetPercent *int32 `json:"budgetPercent,omitempty"`
}

// PublisherTimeouts bounds a request on the global route.
//
// +kubebuilder:validation:XValidation:rule="has(self.request)",message="timeouts must set request"
// +kubebuilder:validation:XValidation:rule="!has(self.request) || duration(self.request) > duration('0s')",message="request must be positive"
type PublisherTimeouts struct {
	// request is how long the gateway waits for a whole request, its retries included,
	// such as "10m": the route's timeouts.request.
	// +optional
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ns|us|ms|s|m|h))+$`
	// +kubebuilder:validation:MaxLength=32
	Request *metav1.Duration `json:"request,omitempty"`
}

package v1beta1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// RouteParentStatus is what one gateway reports of the route the map is published
// through: one entry of the route's status.parents, read back by the publisher.
type RouteParentStatus struct {
	// parent is the parentRef the gateway reports on: its namespace and name, and
	// "#sectionName" when it names a listener.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	Parent string `json:"parent"`

	// controller is the gateway controller that wrote the report.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	Controller string `json:"controller,omitempty"`

	// accepted is the status of the report's Accepted condition; Unknown when it has none.
	// +required
	// +kubebuilder:validation:Enum=True;False;Unknown
	Accepted metav1.ConditionStatus `json:"accepted"`

	// resolvedRefs is the status of the report's ResolvedRefs condition; Unknown when it
	// has none.
	// +required
	// +kubebuilder:validation:Enum=True;False;Unknown
	ResolvedRefs metav1.ConditionStatus `json:"resolvedRefs"`

	// current is true when both conditions speak of the route's current generation; false
	// while the gateway has yet to report on the route as it is now.
	// +optional
	Current bool `json:"current,omitempty"`

	// message gives the reason and message of the first of the two conditions that is not
	// True, or why the report is not current.
	// +optional
	// +kubebuilder:validation:MaxLength=256
	Message string `json:"message,omitempty"`
}

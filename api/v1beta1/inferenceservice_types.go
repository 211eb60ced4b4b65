package v1beta1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// InferenceService condition types a workload cluster's copy reports.
const (
	// InferenceServiceReady is True when the copy serves requests.
	InferenceServiceReady = "Ready"
	// InferenceServiceIngressReady is True when the copy's ingress routes to it. A copy
	// that is not IngressReady counts zero ready replicas for routing.
	InferenceServiceIngressReady = "IngressReady"
)

// PlacementPolicy is how a service chooses its workload clusters.
// +kubebuilder:validation:Enum=ClusterAffinity
type PlacementPolicy string

// PlacementPolicyClusterAffinity chooses clusters with spec.placement.clusterAffinity.
const PlacementPolicyClusterAffinity PlacementPolicy = "ClusterAffinity"

// PlacementMode is how a service spreads over the clusters it is placed on.
// +kubebuilder:validation:Enum=Single;All;Split
type PlacementMode string

// The placement modes.
const (
	PlacementModeSingle PlacementMode = "Single"
	PlacementModeAll    PlacementMode = "All"
	PlacementModeSplit  PlacementMode = "Split"
)

// MatchOperator compares a cluster field with a list of values.
// +kubebuilder:validation:Enum=In;NotIn
type MatchOperator string

// The match operators.
const (
	MatchOperatorIn    MatchOperator = "In"
	MatchOperatorNotIn MatchOperator = "NotIn"
)

// PlacementPhase summarises where a source service stands in placement.
// +kubebuilder:validation:Enum=Pending;Placed
type PlacementPhase string

const (
	// PlacementPhasePending means no candidate cluster holds an addressable copy yet.
	PlacementPhasePending PlacementPhase = "Pending"
	// PlacementPhasePlaced means at least one candidate cluster holds an addressable copy.
	PlacementPhasePlaced PlacementPhase = "Placed"
)

// ModelRef names the model a service serves.
type ModelRef struct {
	// name is the name of the model.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`
}

// RuntimeRef names the serving runtime a service runs on.
type RuntimeRef struct {
	// name is the name of the serving runtime.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`
}

// ComponentSpec sizes one component (engine or decoder) of a service.
// +kubebuilder:validation:XValidation:rule="!has(self.minReplicas) || !has(self.maxReplicas) || self.minReplicas <= self.maxReplicas",message="minReplicas must not exceed maxReplicas"
type ComponentSpec struct {
	// minReplicas is the fewest replicas the component runs.
	// +optional
	// +kubebuilder:validation:Minimum=0
	MinReplicas *int32 `json:"minReplicas,omitempty"`

	// maxReplicas is the most replicas the component runs.
	// +optional
	// +kubebuilder:validation:Minimum=0
	MaxReplicas *int32 `json:"maxReplicas,omitempty"`
}

// FieldSelectorRequirement matches a field of a WorkloadCluster against values.
type FieldSelectorRequirement struct {
	// key is the WorkloadCluster field to match. Only metadata.name is supported.
	// +required
	// +kubebuilder:validation:Enum=metadata.name
	Key string `json:"key"`

	// operator is In (the field is one of values) or NotIn (it is none of them).
	// +required
	Operator MatchOperator `json:"operator"`

	// values are the names to compare with.
	// +optional
	// +kubebuilder:validation:MaxItems=256
	// +kubebuilder:validation:items:MaxLength=253
	Values []string `json:"values,omitempty"`
}

// ClusterAffinityTerm selects WorkloadClusters. Its requirements are ANDed; the terms of
// a placement are ORed.
type ClusterAffinityTerm struct {
	// matchFields are requirements on the WorkloadCluster's fields.
	// +optional
	// +kubebuilder:validation:MaxItems=16
	MatchFields []FieldSelectorRequirement `json:"matchFields,omitempty"`

	// matchLabels are labels the WorkloadCluster must carry, all of them.
	// +optional
	// +kubebuilder:validation:MaxProperties=64
	MatchLabels map[string]string `json:"matchLabels,omitempty"`
}

// Placement says which workload clusters a service runs on.
type Placement struct {
	// policy is how clusters are chosen. Only ClusterAffinity is supported.
	// +required
	Policy PlacementPolicy `json:"policy"`

	// mode is how the service spreads over the chosen clusters: Single, All or Split.
	// +optional
	Mode PlacementMode `json:"mode,omitempty"`

	// clusterAffinity selects the candidate clusters; a cluster that any term matches is
	// a candidate.
	// +optional
	// +kubebuilder:validation:MaxItems=16
	ClusterAffinity []ClusterAffinityTerm `json:"clusterAffinity,omitempty"`
}

// InferenceServiceSpec is the part of a model-serving service that routing reads.
type InferenceServiceSpec struct {
	// model is the model the service serves.
	// +optional
	Model *ModelRef `json:"model,omitempty"`

	// runtime is the serving runtime the service runs on.
	// +optional
	Runtime *RuntimeRef `json:"runtime,omitempty"`

	// engine sizes the engine component.
	// +optional
	Engine *ComponentSpec `json:"engine,omitempty"`

	// decoder sizes the decoder component of a disaggregated service. With a decoder, a
	// cluster's replica counts are the lower of the two components' counts.
	// +optional
	Decoder *ComponentSpec `json:"decoder,omitempty"`

	// placement says which workload clusters the service runs on. A service without it
	// is not routed.
	// +optional
	Placement *Placement `json:"placement,omitempty"`

	// routing holds the service's multi-cluster routing settings.
	// +optional
	Routing *Routing `json:"routing,omitempty"`
}

// ComponentStatus counts one component's replicas on a workload cluster.
type ComponentStatus struct {
	// desiredReplicas is how many replicas the cluster has admitted for the component.
	// +optional
	DesiredReplicas int32 `json:"desiredReplicas,omitempty"`

	// readyReplicas is how many of them are ready.
	// +optional
	ReadyReplicas int32 `json:"readyReplicas,omitempty"`
}

// ComponentsStatus holds the replica counts of a service's components.
type ComponentsStatus struct {
	// engine counts the engine's replicas.
	// +optional
	Engine *ComponentStatus `json:"engine,omitempty"`

	// decoder counts the decoder's replicas.
	// +optional
	Decoder *ComponentStatus `json:"decoder,omitempty"`
}

// PlacementCandidate is one cluster the source service is placed on, as the control
// plane saw it.
type PlacementCandidate struct {
	// cluster is the WorkloadCluster's name.
	// +required
	Cluster string `json:"cluster"`

	// endpoint is the status.url of the service's copy on that cluster, once it has one.
	// +optional
	Endpoint string `json:"endpoint,omitempty"`

	// admittedReplicas is how many replicas the cluster has admitted.
	// +optional
	AdmittedReplicas int32 `json:"admittedReplicas,omitempty"`

	// readyReplicas is how many of them are ready and reachable through the ingress.
	// +optional
	ReadyReplicas int32 `json:"readyReplicas,omitempty"`
}

// PlacementStatus is where the control plane found the source service placed.
type PlacementStatus struct {
	// phase is Placed when a candidate cluster holds an addressable copy, else Pending.
	// +optional
	Phase PlacementPhase `json:"phase,omitempty"`

	// candidates are the clusters that placement selected, in name order.
	// +optional
	// +listType=map
	// +listMapKey=cluster
	Candidates []PlacementCandidate `json:"candidates,omitempty"`
}

// InferenceServiceStatus is what a workload cluster's copy reports about itself and, on
// the control plane's source service, where the service is placed.
type InferenceServiceStatus struct {
	// url is the address the copy serves on; the routing probe's endpoint.
	// +optional
	URL string `json:"url,omitempty"`

	// conditions include Ready and IngressReady.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// components counts each component's replicas on this cluster.
	// +optional
	Components *ComponentsStatus `json:"components,omitempty"`

	// placement is written by the control plane on the source service.
	// +optional
	Placement *PlacementStatus `json:"placement,omitempty"`
}

// InferenceService is a model-serving service. On the control plane it is the source
// that routing reads; on each workload cluster a copy of it reports its endpoint and
// replicas.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=isvc
// +kubebuilder:printcolumn:name="URL",type=string,JSONPath=`.status.url`
// +kubebuilder:printcolumn:name="READY",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="PLACEMENT",type=string,JSONPath=`.status.placement.phase`
// +kubebuilder:printcolumn:name="AGE",type=date,JSONPath=`.metadata.creationTimestamp`
type InferenceService struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the object's standard metadata: name, namespace, labels, owners.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired service.
	// +optional
	Spec InferenceServiceSpec `json:"spec,omitempty"`

	// status is what the service's copy, or the control plane, observed. Top-level
	// fields that another OME version writes and this schema does not know are kept,
	// not pruned; unknown fields deeper down are pruned. Either way reading such a copy
	// never fails.
	// +optional
	// +kubebuilder:pruning:PreserveUnknownFields
	Status InferenceServiceStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// InferenceServiceList is a list of InferenceServices.
type InferenceServiceList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []InferenceService `json:"items"`
}

func init() {
	SchemeBuilder.Register(&InferenceService{}, &InferenceServiceList{})
}

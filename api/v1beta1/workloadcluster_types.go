package v1beta1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// WorkloadClusterReady is the condition type that says whether the control plane can reach
// the member cluster's API server with the registered kubeconfig.
const WorkloadClusterReady = "Ready"

// WorkloadClusterConditionReason is the reason of a WorkloadCluster condition (see
// TrafficMapConditionReason).
type WorkloadClusterConditionReason string

// Reasons of the WorkloadCluster Ready condition.
const (
	// WorkloadClusterReasonReachable (True): the kubeconfig is valid and the member's /version answered.
	WorkloadClusterReasonReachable WorkloadClusterConditionReason = "Reachable"
	// WorkloadClusterReasonProbeFailedRetrying (True): a healthy connection is failing inside its grace
	// period; it turns ConnectionFailed if it does not recover.
	WorkloadClusterReasonProbeFailedRetrying WorkloadClusterConditionReason = "ProbeFailedRetrying"
	// WorkloadClusterReasonConnectionFailed (False): the member's API server did not answer.
	WorkloadClusterReasonConnectionFailed WorkloadClusterConditionReason = "ConnectionFailed"
	// WorkloadClusterReasonSecretNotFound (False): the kubeconfig Secret or its key is missing.
	WorkloadClusterReasonSecretNotFound WorkloadClusterConditionReason = "SecretNotFound"
	// WorkloadClusterReasonSecretNamespaceRefused (False): the kubeconfig Secret is named in a namespace
	// other than the operator's own, the only one it reads Secrets from.
	WorkloadClusterReasonSecretNamespaceRefused WorkloadClusterConditionReason = "SecretNamespaceRefused"
	// WorkloadClusterReasonBadKubeConfig (False): the kubeconfig does not parse or uses a refused form
	// (insecure TLS, file paths, basic auth, auth-provider, an exec plugin off the allow-list).
	WorkloadClusterReasonBadKubeConfig WorkloadClusterConditionReason = "BadKubeConfig"
	// WorkloadClusterReasonClusterProfileUnsupported (False): the WorkloadCluster names a
	// ClusterProfile and the installation reads none (no ClusterProfile namespace is set).
	WorkloadClusterReasonClusterProfileUnsupported WorkloadClusterConditionReason = "ClusterProfileUnsupported"
	// WorkloadClusterReasonClusterProfileNotFound (False): the named ClusterProfile does not exist in
	// the installation's ClusterProfile namespace.
	WorkloadClusterReasonClusterProfileNotFound WorkloadClusterConditionReason = "ClusterProfileNotFound"
	// WorkloadClusterReasonBadClusterProfile (False): the ClusterProfile offers no access provider the
	// installation knows, or the one it offers is refused (plain http, no CA data, a proxy, an
	// exec plugin off the allow-list).
	WorkloadClusterReasonBadClusterProfile WorkloadClusterConditionReason = "BadClusterProfile"
)

// DefaultKubeConfigKey is the Secret key read when spec.clusterSource.kubeConfig.key is
// not set.
const DefaultKubeConfigKey = "kubeconfig"

// SecretReference names a Secret on the control plane.
type SecretReference struct {
	// name is the Secret's name.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`

	// namespace is the Secret's namespace.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	Namespace string `json:"namespace"`
}

// KubeConfigSource points at a kubeconfig stored in a Secret.
type KubeConfigSource struct {
	// secretRef names the Secret that holds the kubeconfig.
	// +required
	SecretRef SecretReference `json:"secretRef"`

	// key is the Secret data key that holds the kubeconfig.
	// +optional
	// +kubebuilder:default=kubeconfig
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Key string `json:"key,omitempty"`
}

// ClusterProfileReference names a ClusterProfile (multicluster.x-k8s.io/v1alpha1, the
// Cluster Inventory API) that a fleet manager publishes for the member cluster.
type ClusterProfileReference struct {
	// name is the ClusterProfile's name. It is looked up in the one namespace the
	// installation reads ClusterProfiles from (ome.multicluster.clusterProfiles.namespace).
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`
}

// ClusterSource says how the control plane connects to the member cluster: exactly one of
// a kubeconfig Secret or a ClusterProfile.
// +kubebuilder:validation:XValidation:rule="has(self.kubeConfig) != has(self.clusterProfileRef)",message="exactly one of kubeConfig or clusterProfileRef must be set."
type ClusterSource struct {
	// kubeConfig is a kubeconfig with inline credentials: an HTTPS server, inline CA
	// data, and an inline bearer token, client certificate and key, or an exec plugin on
	// the installation's allow-list.
	// +optional
	KubeConfig *KubeConfigSource `json:"kubeConfig,omitempty"`

	// clusterProfileRef names the ClusterProfile to connect through: its access providers
	// give the server and CA, and the installation's provider of the same name the exec
	// plugin that gives the credential.
	// +optional
	ClusterProfileRef *ClusterProfileReference `json:"clusterProfileRef,omitempty"`
}

// EndpointDomain is a DNS name under which a cluster's services may be reached: a
// lowercase DNS-1123 subdomain, without a wildcard, whose last label is not a number.
// +kubebuilder:validation:MinLength=1
// +kubebuilder:validation:MaxLength=253
// +kubebuilder:validation:XValidation:rule="self.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*$')",message="an allowed endpoint domain must be a lowercase DNS name such as worker-a.example.com, without a wildcard, scheme, port or trailing dot"
// +kubebuilder:validation:XValidation:rule="!self.matches('(^|[.])([0-9]+|0x[0-9a-f]*)$')",message="an allowed endpoint domain must not end in a number: resolvers read such a name as an IPv4 address"
type EndpointDomain string

// WorkloadClusterSpec registers a member cluster.
type WorkloadClusterSpec struct {
	// clusterSource says how to connect to the member cluster.
	// +required
	ClusterSource ClusterSource `json:"clusterSource"`

	// allowedEndpointDomains are, when set, the only names under which the services on
	// this cluster are probed and published. An endpoint's host must be one of them or lie
	// under one, matched on whole labels: worker-a.example.com allows
	// llm.worker-a.example.com, not llm.evilworker-a.example.com. A home outside them
	// takes no traffic, and its TrafficMap entry says why. Empty leaves the network guard
	// alone to decide.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=64
	AllowedEndpointDomains []EndpointDomain `json:"allowedEndpointDomains,omitempty"`
}

// WorkloadClusterStatus is what the control plane observed of the member cluster.
type WorkloadClusterStatus struct {
	// conditions include Ready.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// observedGeneration is the generation the conditions were computed for.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
}

// WorkloadCluster registers a member cluster that can serve InferenceServices.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Cluster,shortName=wlc
// +kubebuilder:printcolumn:name="READY",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="REASON",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`
// +kubebuilder:printcolumn:name="AGE",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:printcolumn:name="SECRET",type=string,JSONPath=`.spec.clusterSource.kubeConfig.secretRef.name`,priority=1
// +kubebuilder:printcolumn:name="PROFILE",type=string,JSONPath=`.spec.clusterSource.clusterProfileRef.name`,priority=1
// +kubebuilder:printcolumn:name="DOMAINS",type=string,JSONPath=`.spec.allowedEndpointDomains`,priority=1
// +kubebuilder:printcolumn:name="MESSAGE",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].message`,priority=1
type WorkloadCluster struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the object's standard metadata: name, namespace, labels, owners.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec registers the member cluster.
	// +required
	Spec WorkloadClusterSpec `json:"spec"`

	// status is what the control plane observed.
	// +optional
	Status WorkloadClusterStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// WorkloadClusterList is a list of WorkloadClusters.
type WorkloadClusterList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []WorkloadCluster `json:"items"`
}

func init() {
	SchemeBuilder.Register(&WorkloadCluster{}, &WorkloadClusterList{})
}

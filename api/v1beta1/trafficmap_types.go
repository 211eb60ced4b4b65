package v1beta1

import (
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TrafficMap condition types.
const (
	// TrafficMapRoutable says whether any home can take traffic.
	TrafficMapRoutable = "Routable"
	// TrafficMapPublished says whether the map was published to a gateway (a later feature).
	TrafficMapPublished = "Published"
	// TrafficMapOverrideActive says whether a drain overrides the map (a later feature).
	TrafficMapOverrideActive = "OverrideActive"
)

// Reasons of the TrafficMap Routable condition.
const (
	// ReasonRoutable (True): at least one entry has a positive weight.
	ReasonRoutable = "Routable"
	// ReasonAllHomesProbeFailed: every home is gated. True under PreserveTraffic, False
	// under Drain.
	ReasonAllHomesProbeFailed = "AllHomesProbeFailed"
	// ReasonNotPlaced (False): the service is not placed, so the map has no entries.
	ReasonNotPlaced = "NotPlaced"
	// ReasonNoAddressableHome (False): placed, but no cluster reports an endpoint.
	ReasonNoAddressableHome = "NoAddressableHome"
	// ReasonAllHomesUnready (False): no home has a ready replica.
	ReasonAllHomesUnready = "AllHomesUnready"
	// ReasonNoRoutableCapacity (False): no home the probe leaves open has both allocated
	// and ready replicas.
	ReasonNoRoutableCapacity = "NoRoutableCapacity"
	// ReasonTrafficDrain (False): drains hold every home that had weight (a later feature).
	ReasonTrafficDrain = "TrafficDrain"
)

// MaxWeight is the largest weight an entry can carry.
const MaxWeight = 1000000

// ProbeResult is the outcome of one probe attempt.
// +kubebuilder:validation:Enum=Passing;Failing;Unknown
type ProbeResult string

// The probe results.
const (
	// ProbePassing: the status was in acceptStatuses.
	ProbePassing ProbeResult = "Passing"
	// ProbeFailing: the status was in gateStatuses, or the request failed.
	ProbeFailing ProbeResult = "Failing"
	// ProbeUnknown: any other status. It moves neither the counts nor the gate.
	ProbeUnknown ProbeResult = "Unknown"
)

// CapacitySource says where an entry's replica counts came from.
// +kubebuilder:validation:Enum=ControlPlane;Endpoint
type CapacitySource string

// The capacity sources.
const (
	// CapacitySourceControlPlane: counts from the copy's status on the workload cluster.
	CapacitySourceControlPlane CapacitySource = "ControlPlane"
	// CapacitySourceEndpoint: counts reported by the endpoint (capacity polling, later).
	CapacitySourceEndpoint CapacitySource = "Endpoint"
)

// TrafficMapCapacity is the capacity an entry's weight is computed from.
type TrafficMapCapacity struct {
	// allocated is how many replicas the cluster has admitted for the service.
	// +optional
	// +kubebuilder:validation:Minimum=0
	Allocated int32 `json:"allocated,omitempty"`

	// ready is how many of them are ready and reachable through the ingress.
	// +optional
	// +kubebuilder:validation:Minimum=0
	Ready int32 `json:"ready,omitempty"`

	// factor is the capacity factor from spec.routing.capacityFactors, when one is set.
	// +optional
	Factor *resource.Quantity `json:"factor,omitempty"`

	// source says where the counts came from.
	// +optional
	// +kubebuilder:default=ControlPlane
	Source CapacitySource `json:"source,omitempty"`
}

// TrafficMapProbe is the routing probe's record for one home. It is also the state the
// prober restores after a restart, so a gate survives it.
type TrafficMapProbe struct {
	// policyDigest identifies the probe policy the counts were made under. When the
	// policy changes, the gate lifts and the counts start over.
	// +required
	// +kubebuilder:validation:Pattern=`^sha256:[0-9a-f]{64}$`
	PolicyDigest string `json:"policyDigest"`

	// result is the last attempt's result: Passing, Failing or Unknown.
	// +required
	Result ProbeResult `json:"result"`

	// message is what the last attempt got: the status, as in "HTTP 503", or the error.
	// +optional
	// +kubebuilder:validation:MaxLength=1024
	Message string `json:"message,omitempty"`

	// gated is true while the home is gated, until successThreshold passes in a row.
	// +optional
	Gated bool `json:"gated,omitempty"`

	// consecutiveFailures is the home's Failing results in a row.
	// +optional
	// +kubebuilder:validation:Minimum=0
	ConsecutiveFailures int32 `json:"consecutiveFailures,omitempty"`

	// lastProbeTime is when the last attempt finished. If it stops moving, the home is not
	// being probed.
	// +optional
	LastProbeTime *metav1.Time `json:"lastProbeTime,omitempty"`
}

// TrafficMapEntry is one home of the service: a workload cluster that holds a copy.
type TrafficMapEntry struct {
	// cluster is the WorkloadCluster's name.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Cluster string `json:"cluster"`

	// endpoint is the status.url of the service's copy on that cluster.
	// +optional
	// +kubebuilder:validation:MaxLength=2048
	Endpoint string `json:"endpoint,omitempty"`

	// weight is the cluster's share of the service's traffic, relative to the other
	// entries. Zero takes no traffic.
	// +required
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=1000000
	Weight int32 `json:"weight"`

	// healthy is true when the cluster has a ready replica and the probe does not gate it.
	// It ignores capacity.
	// +required
	Healthy bool `json:"healthy"`

	// capacity is what the weight was computed from.
	// +optional
	Capacity TrafficMapCapacity `json:"capacity,omitempty"`

	// probe is the routing probe's record, present once a configured probe has run for
	// this cluster.
	// +optional
	Probe *TrafficMapProbe `json:"probe,omitempty"`

	// drainRefs name the drains that hold this entry (a later feature).
	// +optional
	// +kubebuilder:validation:MaxItems=64
	DrainRefs []string `json:"drainRefs,omitempty"`
}

// TrafficMapSpec is the routing table. The operator writes it; a hand edit is undone.
type TrafficMapSpec struct {
	// service is the InferenceService this map routes.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Service string `json:"service"`

	// mode is the service's placement mode.
	// +optional
	Mode PlacementMode `json:"mode,omitempty"`

	// observedISVCGeneration is the service generation the map was built from.
	// +optional
	ObservedISVCGeneration int64 `json:"observedISVCGeneration,omitempty"`

	// entries are the service's homes, one per cluster, in cluster name order.
	// +optional
	// +listType=map
	// +listMapKey=cluster
	// +kubebuilder:validation:MaxItems=1024
	Entries []TrafficMapEntry `json:"entries,omitempty"`
}

// TrafficMapStatus reports how the map stands.
type TrafficMapStatus struct {
	// sourceUID is the UID of the InferenceService the map was built from.
	// +optional
	SourceUID string `json:"sourceUID,omitempty"`

	// homes is the number of entries in spec.entries: the workload clusters that serve the
	// service. Set with the Routable condition, for `kubectl get trafficmap -o wide`.
	// +optional
	// +kubebuilder:validation:Minimum=0
	Homes *int32 `json:"homes,omitempty"`

	// gatedHomes is the number of entries that the routing probe gates now.
	// +optional
	// +kubebuilder:validation:Minimum=0
	GatedHomes *int32 `json:"gatedHomes,omitempty"`

	// conditions include Routable.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// TrafficMap is the routing table of one InferenceService: one weighted entry per
// workload cluster that serves it. It has the service's name and namespace and is owned
// by it.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=tm;tmap
// +kubebuilder:printcolumn:name="MODE",type=string,JSONPath=`.spec.mode`
// +kubebuilder:printcolumn:name="PUBLISHED",type=string,JSONPath=`.status.conditions[?(@.type=="Published")].status`
// +kubebuilder:printcolumn:name="ROUTABLE",type=string,JSONPath=`.status.conditions[?(@.type=="Routable")].status`
// +kubebuilder:printcolumn:name="OVERRIDE",type=string,JSONPath=`.status.conditions[?(@.type=="OverrideActive")].status`
// +kubebuilder:printcolumn:name="REASON",type=string,JSONPath=`.status.conditions[?(@.type=="Routable")].reason`
// +kubebuilder:printcolumn:name="AGE",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:printcolumn:name="HOMES",type=integer,JSONPath=`.status.homes`,priority=1
// +kubebuilder:printcolumn:name="GATED",type=integer,JSONPath=`.status.gatedHomes`,priority=1
// +kubebuilder:printcolumn:name="MESSAGE",type=string,JSONPath=`.status.conditions[?(@.type=="Routable")].message`,priority=1
type TrafficMap struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the routing table.
	// +optional
	Spec TrafficMapSpec `json:"spec,omitempty"`

	// status reports how the map stands.
	// +optional
	Status TrafficMapStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// TrafficMapList is a list of TrafficMaps.
type TrafficMapList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []TrafficMap `json:"items"`
}

func init() {
	SchemeBuilder.Register(&TrafficMap{}, &TrafficMapList{})
}

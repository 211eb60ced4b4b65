package v1beta1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// LoadBalancingMode says whether load-following shares move traffic.
// +kubebuilder:validation:Enum=Shadow;Enforce
type LoadBalancingMode string

// The modes of load balancing.
const (
	// LoadBalancingShadow records the share and the weight load would set, and moves
	// nothing: the weights stay as capacity sets them.
	LoadBalancingShadow LoadBalancingMode = "Shadow"
	// LoadBalancingEnforce sets the weights from the shares.
	LoadBalancingEnforce LoadBalancingMode = "Enforce"
)

// RoutingLoadBalancing lets the model servers' own load move a service's weights: a cluster
// whose servers are past the target gives up part of its share to clusters below theirs,
// and takes it back when it has headroom again (docs/concepts/load-balancing.md). Gates,
// drains, capacity and failover tiers decide first; load only divides what they leave.
//
// +kubebuilder:validation:XValidation:rule="!(has(self.disabled) && self.disabled) || !(has(self.mode) || has(self.waitingPerReplica) || has(self.cacheUsePercent) || has(self.minInterval) || has(self.maxStepPercent) || has(self.hysteresisPercent) || has(self.floorPercent))",message="disabled must not be combined with load balancing fields"
// +kubebuilder:validation:XValidation:rule="(has(self.disabled) && self.disabled) || has(self.mode)",message="loadBalancing must set mode unless it is disabled"
// +kubebuilder:validation:XValidation:rule="(has(self.disabled) && self.disabled) || has(self.waitingPerReplica) || has(self.cacheUsePercent)",message="loadBalancing must set waitingPerReplica, cacheUsePercent, or both"
// +kubebuilder:validation:XValidation:rule="!has(self.minInterval) || duration(self.minInterval) > duration('0s')",message="minInterval must be positive"
type RoutingLoadBalancing struct {
	// disabled turns load balancing off for this service, whatever the installation sets.
	// It cannot be combined with any other field.
	// +optional
	Disabled bool `json:"disabled,omitempty"`

	// mode is Shadow (record the weights load would set, move nothing) or Enforce.
	// +optional
	Mode LoadBalancingMode `json:"mode,omitempty"`

	// waitingPerReplica is the target for the requests waiting in a cluster's model
	// servers, per ready replica: past it the cluster is saturated.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=10000
	WaitingPerReplica *int32 `json:"waitingPerReplica,omitempty"`

	// cacheUsePercent is the target for a cluster's KV-cache use, in percent: past it the
	// cluster is saturated.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100
	CacheUsePercent *int32 `json:"cacheUsePercent,omitempty"`

	// minInterval is the least time between two changes of one cluster's share; at least
	// the traffic signal's interval. 30s when left out.
	// +optional
	MinInterval *metav1.Duration `json:"minInterval,omitempty"`

	// maxStepPercent is the most a cluster's share moves in one change, in points of its
	// capacity share. 25 when left out.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100
	MaxStepPercent *int32 `json:"maxStepPercent,omitempty"`

	// hysteresisPercent is the band around the target in which nothing moves, in percent of
	// the target: a cluster is saturated above target × (100 + hysteresis)%, and has
	// headroom below target × (100 − hysteresis)%. 20 when left out.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=90
	HysteresisPercent *int32 `json:"hysteresisPercent,omitempty"`

	// floorPercent is the lowest share load alone can set, in percent of the cluster's
	// capacity share, so that load never starves a cluster to 0. 10 when left out.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100
	FloorPercent *int32 `json:"floorPercent,omitempty"`
}

// TrafficMapLoad is one cluster's load record: what the load signal last read of its model
// servers, and the share of its capacity weight that load gives it.
type TrafficMapLoad struct {
	// mode is the load balancing mode the share was set under.
	// +required
	Mode LoadBalancingMode `json:"mode"`

	// signal is Known when the last reading could be used, and Unknown when it could not
	// (see message); an Unknown reading moves nothing.
	// +required
	Signal TrafficSignalState `json:"signal"`

	// sharePercent is the share of its capacity weight that load gives the cluster, from
	// floorPercent to 100. Under Shadow it is the share load would give.
	// +required
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	SharePercent int32 `json:"sharePercent"`

	// shadowWeight is the weight the share would set, under Shadow only.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=1000000
	ShadowWeight *int32 `json:"shadowWeight,omitempty"`

	// message says why the share last moved or holds, with the reading, or why the reading
	// is Unknown.
	// +optional
	// +kubebuilder:validation:MaxLength=160
	Message string `json:"message,omitempty"`

	// lastChangeTime is when the share last moved, written as lastProbeTime is.
	// +optional
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Format=date-time
	// +kubebuilder:validation:Pattern=`^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]([.][0-9]{1,9})?(Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9])$`
	// +kubebuilder:validation:MaxLength=35
	LastChangeTime *metav1.Time `json:"lastChangeTime,omitempty"`

	// pressurePercent is how far the last Known reading is toward the target, in percent:
	// the higher of waiting per ready replica over waitingPerReplica and cache use over
	// cacheUsePercent. Past 100 plus the hysteresis the cluster is saturated.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100000
	PressurePercent *int32 `json:"pressurePercent,omitempty"`

	// changePressurePercent is pressurePercent when the share last moved or held: after a
	// fall, while the pressure is lower than then, that change is still taking effect (a
	// queue drains) and the share holds rather than falling again; after a climb, once the
	// pressure has risen past it by more than the band, the share holds rather than
	// climbing again.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100000
	ChangePressurePercent *int32 `json:"changePressurePercent,omitempty"`

	// saturatedSharePercent is the share the cluster last fell from because it was
	// saturated there: until sixteen minIntervals after saturatedShareTime, a climb stops
	// short of it.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100
	SaturatedSharePercent *int32 `json:"saturatedSharePercent,omitempty"`

	// saturatedShareTime is when the cluster fell from saturatedSharePercent, written as
	// lastProbeTime is.
	// +optional
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Format=date-time
	// +kubebuilder:validation:Pattern=`^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]([.][0-9]{1,9})?(Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9])$`
	// +kubebuilder:validation:MaxLength=35
	SaturatedShareTime *metav1.Time `json:"saturatedShareTime,omitempty"`

	// headroomSharePercent is the share at which the cluster last had headroom when it
	// climbed or held below saturatedSharePercent: a fall from above it stops there rather
	// than a whole step down.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100
	HeadroomSharePercent *int32 `json:"headroomSharePercent,omitempty"`
}

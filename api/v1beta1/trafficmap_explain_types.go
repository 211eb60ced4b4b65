package v1beta1

// WeightReason says why a TrafficMap entry's weight is what it is: the first cause that
// holds, in the order of the constants below for a weight of 0 (see pkg/trafficmap's
// Explain). An alert can match it; the entry's weightMessage gives the whole cause.
// +kubebuilder:validation:Enum=Routed;LoadShifted;Spilled;PreservedTraffic;RampingUp;ShadowGated;PassiveShadowGated;PassiveGateCapped;Unobserved;CapacityCapped;Drained;Refused;ProbeNotSent;NoReadyReplicas;NoCapacity;Gated;PassiveGated;Standby
type WeightReason string

// The weight reasons of a positive weight.
const (
	// WeightRouted: the cluster takes traffic in proportion to its servable replicas.
	WeightRouted WeightReason = "Routed"
	// WeightLoadShifted: the cluster takes traffic in proportion to its servable replicas
	// times the share its model servers' load gives it (spec.routing.loadBalancing in
	// Enforce mode): below 100% while it is, or was, saturated (see the entry's load).
	WeightLoadShifted WeightReason = "LoadShifted"
	// WeightSpilled: the cluster is in a failover tier after the first, and takes the share
	// of traffic that the tiers before it have no healthy capacity for.
	WeightSpilled WeightReason = "Spilled"
	// WeightPreservedTraffic: the probe gates the cluster, but every home is gated and
	// allFailedPolicy PreserveTraffic sets the gates aside.
	WeightPreservedTraffic WeightReason = "PreservedTraffic"
	// WeightRampingUp: the cluster's gate lifted a short while ago, and under the probe's
	// rampUp it gets only a share of its weight, which grows each period.
	WeightRampingUp WeightReason = "RampingUp"
	// WeightShadowGated: a probe in Shadow mode would gate the cluster; Shadow moves no
	// traffic, so the weight is as without a probe.
	WeightShadowGated WeightReason = "ShadowGated"
	// WeightPassiveShadowGated: the probe's passive gate, in Shadow mode, would gate the
	// cluster on the failed share of its real requests; Shadow moves no traffic.
	WeightPassiveShadowGated WeightReason = "PassiveShadowGated"
	// WeightPassiveGateCapped: the cluster's real requests fail enough for the passive
	// gate, but passive gates already hold out the probe's maxEjectionPercent of the
	// service's capacity, so it stays in traffic.
	WeightPassiveGateCapped WeightReason = "PassiveGateCapped"
	// WeightUnobserved: the manager cannot read the cluster (see the entry's
	// unobservedSince); it takes traffic at its last known capacity while its probe passes.
	WeightUnobserved WeightReason = "Unobserved"
)

// The weight reasons of a weight of 0, in the order in which they win, and
// WeightCapacityCapped, which also explains a positive weight lowered by a capacity report.
const (
	// WeightDrained: an ome.io/traffic-drain override holds the cluster at 0.
	WeightDrained WeightReason = "Drained"
	// WeightRefused: the operator refuses the cluster: its copy's status.url, or a host
	// outside its WorkloadCluster's allowedEndpointDomains (see the entry's refused).
	WeightRefused WeightReason = "Refused"
	// WeightProbeNotSent: the operator will not send the cluster's probe (the network
	// guard refuses every address, or the URL or its scheme is unusable).
	WeightProbeNotSent WeightReason = "ProbeNotSent"
	// WeightNoReadyReplicas: the copy reports no ready replica (or is not IngressReady).
	WeightNoReadyReplicas WeightReason = "NoReadyReplicas"
	// WeightCapacityCapped: the cluster's capacity report lowers its allocated replicas;
	// with weight 0, to 0.
	WeightCapacityCapped WeightReason = "CapacityCapped"
	// WeightNoCapacity: the copy admits no replica, so nothing is servable.
	WeightNoCapacity WeightReason = "NoCapacity"
	// WeightGated: the routing probe gates the cluster.
	WeightGated WeightReason = "Gated"
	// WeightPassiveGated: the probe's passive gate holds the cluster out, because the
	// global gateway saw too many of its real requests fail (see the entry's passiveGate).
	WeightPassiveGated WeightReason = "PassiveGated"
	// WeightStandby: the cluster could serve, but it is in a failover tier that gets no
	// traffic while the tiers before it are healthy enough to take all of it.
	WeightStandby WeightReason = "Standby"
)

// ExclusionReason says why a cluster that the service's placement selects has no entry
// in its TrafficMap.
// +kubebuilder:validation:Enum=ClusterUnreachable;ClusterNotReady;MemberNotConnected;NoCopy;NoEndpoint
type ExclusionReason string

// The exclusion reasons.
const (
	// ExcludedClusterUnreachable: the WorkloadCluster is not Ready because its API server
	// does not answer (Ready reason ConnectionFailed).
	ExcludedClusterUnreachable ExclusionReason = "ClusterUnreachable"
	// ExcludedClusterNotReady: the WorkloadCluster is not Ready for another reason (its
	// Secret, its kubeconfig, or no condition yet); the message names it.
	ExcludedClusterNotReady ExclusionReason = "ClusterNotReady"
	// ExcludedMemberNotConnected: the WorkloadCluster is Ready, but this manager has not
	// connected to it yet, and the map holds no entry of it to keep.
	ExcludedMemberNotConnected ExclusionReason = "MemberNotConnected"
	// ExcludedNoCopy: the cluster holds no copy of the service.
	ExcludedNoCopy ExclusionReason = "NoCopy"
	// ExcludedNoEndpoint: the cluster's copy reports no status.url yet.
	ExcludedNoEndpoint ExclusionReason = "NoEndpoint"
)

// ExcludedCluster is a cluster that the service's placement selects but whose traffic the
// map cannot route: it has no entry, and this says why.
type ExcludedCluster struct {
	// cluster is the WorkloadCluster's name.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Cluster string `json:"cluster"`

	// reason is why the cluster has no entry.
	// +required
	Reason ExclusionReason `json:"reason"`

	// message is the whole cause, such as the WorkloadCluster's Ready condition.
	// +optional
	// +kubebuilder:validation:MaxLength=512
	Message string `json:"message,omitempty"`
}

// LeftOutReason says why the route the publisher wrote leaves out a cluster of the map.
// +kubebuilder:validation:Enum=HostRefused;HostUnresolved;InvalidEndpoint
type LeftOutReason string

// The reasons a cluster is left out of the route.
const (
	// LeftOutHostRefused: the publish guard refuses the host of the cluster's endpoint,
	// by its form or by an address it resolves to.
	LeftOutHostRefused LeftOutReason = "HostRefused"
	// LeftOutHostUnresolved: no lookup of the host has answered since the manager started,
	// and no backend published before names it.
	LeftOutHostUnresolved LeftOutReason = "HostUnresolved"
	// LeftOutInvalidEndpoint: the cluster's endpoint gives no host a backend can name.
	LeftOutInvalidEndpoint LeftOutReason = "InvalidEndpoint"
)

// LeftOutCluster is a cluster of the map that the route leaves out.
type LeftOutCluster struct {
	// cluster is the WorkloadCluster's name.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Cluster string `json:"cluster"`

	// reason is why the route leaves the cluster out.
	// +required
	Reason LeftOutReason `json:"reason"`

	// message is the whole cause, as the publish guard gives it.
	// +optional
	// +kubebuilder:validation:MaxLength=512
	Message string `json:"message,omitempty"`
}

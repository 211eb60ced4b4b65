package v1beta1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// UnlistedTier is the name of the implicit last tier: the homes that no tier of a
// failover setting names. No tier may take the name.
const UnlistedTier = "unlisted"

// DefaultOverprovisioningPercent is Envoy's default overprovisioning factor, 1.4, in
// percent: a tier counts as fully healthy while at least 1/1.4 of its capacity is healthy.
const DefaultOverprovisioningPercent = 140

// RoutingFailover orders a service's homes in tiers: the first tier takes the traffic
// while it is healthy enough, and the rest spills to the next tiers as its healthy
// capacity falls (docs/concepts/failover.md).
//
// The duplicate name's messageExpression maps the tiers to their names before it filters:
// the cost estimator loses a name's maxLength when it is selected from a filtered tier, and
// would put the expression's cost past any budget.
//
// +kubebuilder:validation:XValidation:rule="!(has(self.disabled) && self.disabled) || !(has(self.tiers) || has(self.overprovisioningPercent))",message="disabled must not be combined with tiers or overprovisioningPercent"
// +kubebuilder:validation:XValidation:rule="(has(self.disabled) && self.disabled) || has(self.tiers)",message="failover must set tiers unless it is disabled"
// +kubebuilder:validation:XValidation:rule="!has(self.tiers) || self.tiers.all(t, self.tiers.exists_one(u, u.name == t.name))",messageExpression="'tier name ' + self.tiers.map(t, t.name).filter(n, !self.tiers.exists_one(u, u.name == n))[0] + ' is used more than once'"
// +kubebuilder:validation:XValidation:rule="!has(self.tiers) || self.tiers.all(t, !has(t.clusters) || t.clusters.all(c, self.tiers.filter(u, has(u.clusters) && c in u.clusters).size() == 1))",messageExpression="'cluster ' + self.tiers.map(t, has(t.clusters) ? t.clusters : []).flatten().filter(c, self.tiers.filter(u, has(u.clusters) && c in u.clusters).size() > 1)[0] + ' is in more than one tier'"
type RoutingFailover struct {
	// disabled turns failover off for this service, whatever the installation sets: every
	// healthy home shares the traffic by capacity. It cannot be combined with any other
	// field.
	// +optional
	Disabled bool `json:"disabled,omitempty"`

	// tiers are the tiers in order of preference, the first preferred. A home that no tier
	// names is in an implicit last tier, named unlisted. A cluster may be in one tier only.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=8
	Tiers []FailoverTier `json:"tiers,omitempty"`

	// overprovisioningPercent is Envoy's overprovisioning factor in percent: a tier takes
	// all the traffic it is offered while its healthy capacity times this percentage is at
	// least its whole capacity. 140 (Envoy's 1.4) when left out; 100 spills in proportion
	// to the first lost replica.
	// +optional
	// +kubebuilder:validation:Minimum=100
	// +kubebuilder:validation:Maximum=1000
	OverprovisioningPercent *int32 `json:"overprovisioningPercent,omitempty"`
}

// FailoverTier is one tier of homes: the workload clusters it names, those its selector
// matches, or both.
//
// +kubebuilder:validation:XValidation:rule="has(self.clusters) || has(self.clusterSelector)",message="a tier must set clusters, clusterSelector, or both"
// +kubebuilder:validation:XValidation:rule="!has(self.clusterSelector) || (has(self.clusterSelector.matchLabels) && size(self.clusterSelector.matchLabels) > 0) || (has(self.clusterSelector.matchExpressions) && size(self.clusterSelector.matchExpressions) > 0)",message="clusterSelector must not be empty: it would match every cluster"
type FailoverTier struct {
	// name names the tier in the TrafficMap, its events and kubectl's views. It is a DNS
	// label, unique among the tiers, and not unlisted.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	// +kubebuilder:validation:XValidation:rule="self != 'unlisted'",message="tier name unlisted is reserved for the homes no tier names"
	Name string `json:"name"`

	// clusters are WorkloadCluster names in the tier.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=32
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=253
	Clusters []string `json:"clusters,omitempty"`

	// clusterSelector selects WorkloadClusters by their labels, such as
	// topology.kubernetes.io/region. It must not be empty.
	// +optional
	ClusterSelector *metav1.LabelSelector `json:"clusterSelector,omitempty"`
}

// TrafficMapFailover is the tier split a map's entries were built under.
type TrafficMapFailover struct {
	// overprovisioningPercent is the overprovisioning factor the split used, in percent.
	// +required
	// +kubebuilder:validation:Minimum=100
	// +kubebuilder:validation:Maximum=1000
	OverprovisioningPercent int32 `json:"overprovisioningPercent"`

	// tiers are the tiers in order of preference, unlisted last when a home is in it.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=9
	Tiers []TrafficMapTier `json:"tiers,omitempty"`

	// summary is each tier's load in one line, such as "east 70%, west 30%", for kubectl's
	// wide view.
	// +optional
	// +kubebuilder:validation:MaxLength=1024
	Summary string `json:"summary,omitempty"`
}

// TrafficMapTier is one tier's health and the share of traffic it takes.
type TrafficMapTier struct {
	// name is the tier's name.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	Name string `json:"name"`

	// health is the tier's health score in percent: its healthy capacity over its whole
	// capacity, times the overprovisioning factor, rounded down and capped at 100.
	// +required
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	Health int32 `json:"health"`

	// loadPercent is the share of the service's traffic the tier takes, rounded to a whole
	// percent; the weights carry the exact share.
	// +required
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	LoadPercent int32 `json:"loadPercent"`
}

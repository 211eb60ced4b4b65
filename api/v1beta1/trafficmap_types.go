package v1beta1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TrafficMap condition types.
const (
	// TrafficMapRoutable says whether any home can take traffic.
	TrafficMapRoutable = "Routable"
	// TrafficMapPublished says whether the publisher has written the map into the global
	// gateway's HTTPRoute.
	TrafficMapPublished = "Published"
	// TrafficMapPublicationFallback says whether the publisher serves a retained plan
	// instead of the current one. The built-in publisher retains none.
	TrafficMapPublicationFallback = "PublicationFallback"
	// TrafficMapOverrideActive says whether a manual traffic drain holds any entry.
	TrafficMapOverrideActive = "OverrideActive"
	// TrafficMapCapacityFallback is True when some home uses control-plane capacity
	// because its configured capacity poll gives no usable ceiling.
	TrafficMapCapacityFallback = "CapacityFallback"
	// TrafficMapSettingsAccepted says whether the manager accepts the service's routing
	// settings. False means the map is frozen as last written: no probe runs and no weight
	// moves until the settings are fixed.
	TrafficMapSettingsAccepted = "SettingsAccepted"
	// TrafficMapRouteComplete says whether the route the publisher wrote carries every
	// cluster of the map. False names the clusters it leaves out (status.leftOutOfRoute):
	// they get no traffic through the route, whatever their weight in the map.
	TrafficMapRouteComplete = "RouteComplete"
	// TrafficMapTrafficApplied says whether the global gateway's own counters show that it
	// follows the route: each cluster the route holds at weight 0 stopped getting requests.
	// The routing reconciler writes it from the traffic signal (routing.trafficSignal);
	// without one it is Unknown NotObserved.
	TrafficMapTrafficApplied = "TrafficApplied"
)

// TrafficMapConditionReason is the reason of a TrafficMap condition. The reasons are typed
// per kind, as Gateway API types its routes' and gateways', so that a reason of one kind
// cannot be set on another's condition by mistake; metav1.Condition holds it as a string.
type TrafficMapConditionReason string

// Reasons of the TrafficMap SettingsAccepted condition.
const (
	// TrafficMapReasonSettingsAccepted (True): the service's routing settings are in force.
	TrafficMapReasonSettingsAccepted TrafficMapConditionReason = "Accepted"
	// TrafficMapReasonRoutingPolicyRefused (False): the manager refuses a routing setting of the
	// service; the message names the setting and the rule it breaks. The publisher leaves
	// Published as it was, and the route as it last carried the map.
	TrafficMapReasonRoutingPolicyRefused TrafficMapConditionReason = "RoutingPolicyRefused"
)

// Reasons of the TrafficMap CapacityFallback condition.
const (
	// TrafficMapReasonCapacityPollingDisabled (False): no capacity poll applies to the service.
	TrafficMapReasonCapacityPollingDisabled TrafficMapConditionReason = "CapacityPollingDisabled"
	// TrafficMapReasonNoCapacityTargets (False): polling applies but the map has no home.
	TrafficMapReasonNoCapacityTargets TrafficMapConditionReason = "NoCapacityTargets"
	// TrafficMapReasonEndpointCapacityAvailable (False): every home has a usable ceiling.
	TrafficMapReasonEndpointCapacityAvailable TrafficMapConditionReason = "EndpointCapacityAvailable"
	// TrafficMapReasonEndpointCapacityUnavailable (True): some home has none; its entry's
	// capacity.fallbackReason says why.
	TrafficMapReasonEndpointCapacityUnavailable TrafficMapConditionReason = "EndpointCapacityUnavailable"
)

// Reasons of the TrafficMap OverrideActive condition.
const (
	// TrafficMapReasonNoOverrides (False): the service has no ome.io/traffic-drain override.
	TrafficMapReasonNoOverrides TrafficMapConditionReason = "NoOverrides"
	// TrafficMapReasonOverridesPending (False): overrides are set but none names a cluster in the map.
	TrafficMapReasonOverridesPending TrafficMapConditionReason = "OverridesPending"
	// TrafficMapReasonOverridesApplied (True): at least one override holds an entry at weight 0.
	TrafficMapReasonOverridesApplied TrafficMapConditionReason = "OverridesApplied"
)

// Reasons of the TrafficMap Routable condition.
const (
	// TrafficMapReasonRoutable (True): at least one entry has a positive weight.
	TrafficMapReasonRoutable TrafficMapConditionReason = "Routable"
	// TrafficMapReasonAllHomesProbeFailed: every home is gated and some home could serve. True
	// under PreserveTraffic, False under Drain. Which reason wins is in
	// docs/concepts/how-it-decides.md.
	TrafficMapReasonAllHomesProbeFailed TrafficMapConditionReason = "AllHomesProbeFailed"
	// TrafficMapReasonNotPlaced (False): the service is not placed, so the map has no entries.
	TrafficMapReasonNotPlaced TrafficMapConditionReason = "NotPlaced"
	// TrafficMapReasonNoAddressableHome (False): placed, but no cluster reports an endpoint.
	TrafficMapReasonNoAddressableHome TrafficMapConditionReason = "NoAddressableHome"
	// TrafficMapReasonAllHomesUnready (False): no home has a ready replica.
	TrafficMapReasonAllHomesUnready TrafficMapConditionReason = "AllHomesUnready"
	// TrafficMapReasonNoRoutableCapacity (False): no home the probe leaves open has both allocated
	// and ready replicas.
	TrafficMapReasonNoRoutableCapacity TrafficMapConditionReason = "NoRoutableCapacity"
	// TrafficMapReasonTrafficDrain (False): manual drains hold every home that had weight.
	TrafficMapReasonTrafficDrain TrafficMapConditionReason = "TrafficDrain"
	// TrafficMapReasonEndpointRefused (False): no home takes traffic, and some home that could serve
	// is refused by the operator itself (see an entry's refused).
	TrafficMapReasonEndpointRefused TrafficMapConditionReason = "EndpointRefused"
)

// Reasons of the Published and PublicationFallback conditions, which the publisher writes.
const (
	// TrafficMapReasonPublished (True): the route carries the map's current weights.
	TrafficMapReasonPublished TrafficMapConditionReason = "Published"
	// TrafficMapReasonWithdrawn: no global gateway, backend port or hostname is set; nothing is
	// published.
	TrafficMapReasonWithdrawn TrafficMapConditionReason = "Withdrawn"
	// TrafficMapReasonTransitioning: the publisher is writing the route for the first time.
	TrafficMapReasonTransitioning TrafficMapConditionReason = "Transitioning"
	// TrafficMapReasonFinalizing: the map is going and the publisher is removing its objects.
	TrafficMapReasonFinalizing TrafficMapConditionReason = "Finalizing"
	// TrafficMapReasonUnpublished: the service is deleting or left routing; nothing is published.
	TrafficMapReasonUnpublished TrafficMapConditionReason = "Unpublished"
	// TrafficMapReasonInvalidOwner: the map's owner reference or source UID does not match its
	// InferenceService.
	TrafficMapReasonInvalidOwner TrafficMapConditionReason = "InvalidOwner"
	// TrafficMapReasonInvalidOptions: routing.publisher.options is set; the built-in publisher
	// accepts none.
	TrafficMapReasonInvalidOptions TrafficMapConditionReason = "InvalidOptions"
	// TrafficMapReasonInvalidPlan: the map, the service or the endpoint settings break a rule of
	// the route.
	TrafficMapReasonInvalidPlan TrafficMapConditionReason = "InvalidPlan"
	// TrafficMapReasonClaimRejected: the route, a backend or the hostname belongs to someone else.
	TrafficMapReasonClaimRejected TrafficMapConditionReason = "ClaimRejected"
	// TrafficMapReasonGlobalHostRefused: the service's ome.io/global-host annotation names a
	// hostname the installation's endpoint.globalHostAnnotation refuses, or another
	// service's template hostname; nothing is published for the service.
	TrafficMapReasonGlobalHostRefused TrafficMapConditionReason = "GlobalHostRefused"
	// TrafficMapReasonApplyFailed: writing the route or a backend failed; retried with backoff.
	TrafficMapReasonApplyFailed TrafficMapConditionReason = "ApplyFailed"
	// TrafficMapReasonNoBackends (Published False): the route is written but holds no
	// backend at all (the map has no cluster the publisher may publish), so the gateway
	// sends the service's requests nowhere.
	TrafficMapReasonNoBackends TrafficMapConditionReason = "NoBackends"
	// TrafficMapReasonLastPositiveRetained (Published False, PublicationFallback True): the current
	// plan would send nothing where the route sends traffic, and the map's allFailedPolicy
	// is not Drain, so the route stays as last published; the message says why the plan
	// sends nothing.
	TrafficMapReasonLastPositiveRetained TrafficMapConditionReason = "LastPositiveRetained"
	// TrafficMapReasonPublisherChanged: status.publisher names another publisher than the one
	// selected, with claims of its own; they are never touched.
	TrafficMapReasonPublisherChanged TrafficMapConditionReason = "PublisherChanged"
	// TrafficMapReasonDrainFailed: a route the map claimed and no longer needs could not be
	// set to weight 0 or deleted; retried with backoff.
	TrafficMapReasonDrainFailed TrafficMapConditionReason = "DrainFailed"
	// TrafficMapReasonUnsupported (PublicationFallback False): the publisher retains no plans.
	TrafficMapReasonUnsupported TrafficMapConditionReason = "Unsupported"
)

// Reasons of the TrafficMap RouteComplete condition.
const (
	// TrafficMapReasonAllClustersInRoute (True): the route holds a backend for every
	// cluster of the map the publisher publishes.
	TrafficMapReasonAllClustersInRoute TrafficMapConditionReason = "AllClustersInRoute"
	// TrafficMapReasonClustersLeftOut (False): the route leaves out the clusters that
	// status.leftOutOfRoute names; the message names them too.
	TrafficMapReasonClustersLeftOut TrafficMapConditionReason = "ClustersLeftOut"
)

// Reasons of the TrafficMap TrafficApplied condition, which the routing reconciler writes.
const (
	// TrafficMapReasonTrafficMoved (True): every cluster the route holds at weight 0 got no
	// request in a whole window of the traffic signal that started after the route did.
	TrafficMapReasonTrafficMoved TrafficMapConditionReason = "TrafficMoved"
	// TrafficMapReasonStillServed (False): a cluster the route has held at weight 0 for at
	// least one interval of the signal still gets requests: the gateway does not follow the
	// route (a lost update).
	TrafficMapReasonStillServed TrafficMapConditionReason = "StillServed"
	// TrafficMapReasonAwaitingEvidence (Unknown): a cluster went to weight 0 and no window of
	// the signal that started after the route carried it has been read yet.
	TrafficMapReasonAwaitingEvidence TrafficMapConditionReason = "AwaitingEvidence"
	// TrafficMapReasonSignalUnknown (Unknown): the traffic signal of a cluster at weight 0
	// cannot be read; the message gives the signal's reason.
	TrafficMapReasonSignalUnknown TrafficMapConditionReason = "SignalUnknown"
	// TrafficMapReasonSplitMatched (True): the route holds no cluster at weight 0, and the
	// requests the gateway sent the clusters it weighs, in a whole window after the route
	// carried its weights, matched those weights within the stated tolerance.
	TrafficMapReasonSplitMatched TrafficMapConditionReason = "SplitMatched"
	// TrafficMapReasonSplitMismatch (False): the gateway's requests to the clusters the
	// route weighs, in a whole window an interval after the route carried its weights, are
	// off those weights by more than the stated tolerance: it may not follow the route.
	TrafficMapReasonSplitMismatch TrafficMapConditionReason = "SplitMismatch"
	// TrafficMapReasonNoClusterAtZero (Unknown): the route holds no cluster at weight 0, so
	// there is no withdrawal to see, and its split cannot be judged (fewer than two
	// clusters weighed, or too few requests).
	TrafficMapReasonNoClusterAtZero TrafficMapConditionReason = "NoClusterAtZero"
	// TrafficMapReasonNotObserved (Unknown): the installation sets no traffic signal, so
	// nothing shows what the gateway does with the route.
	TrafficMapReasonNotObserved TrafficMapConditionReason = "NotObserved"
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
	// CapacitySourceEndpoint: the endpoint's capacity report lowered allocated.
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

	// factor is the capacity factor from spec.routing.capacityFactors, when one is set,
	// in its canonical form ("1.5" reads "1500m").
	// +optional
	Factor *CapacityFactor `json:"factor,omitempty"`

	// source says where the counts came from: Endpoint only when a capacity report
	// lowered allocated.
	// +optional
	// +kubebuilder:default=ControlPlane
	Source CapacitySource `json:"source,omitempty"`

	// reported is the ceiling the capacity poll applies, recorded even when it is not
	// below the admitted replicas; absent when there is none.
	// +optional
	// +kubebuilder:validation:Minimum=0
	Reported *int32 `json:"reported,omitempty"`

	// fallbackReason says why a configured capacity poll gives no ceiling, so that the
	// admitted replicas count; empty when polling is off or the ceiling is usable. 384
	// characters at most (1024 until v1.3.0, whose load records took that room in the map's
	// etcd budget): a longer reason is cut.
	// +optional
	// +kubebuilder:validation:MaxLength=384
	FallbackReason string `json:"fallbackReason,omitempty"`
}

// TrafficMapProbe is the routing probe's record for one home. It is also the state the
// prober restores after a restart, so a gate survives it.
type TrafficMapProbe struct {
	// policyDigest identifies the probe policy the counts were made under. When the
	// policy changes, the gate lifts and the counts start over.
	// +required
	// +kubebuilder:validation:MaxLength=71
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
	// being probed. It is an RFC 3339 time with an upper-case T and Z (or a numeric
	// offset), as the manager writes it: 35 characters at most, with nanoseconds and an
	// offset, which the maxLength says so that a map's size can be bounded.
	// +optional
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Format=date-time
	// +kubebuilder:validation:Pattern=`^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]([.][0-9]{1,9})?(Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9])$`
	// +kubebuilder:validation:MaxLength=35
	LastProbeTime *metav1.Time `json:"lastProbeTime,omitempty"`

	// wouldGate is true while a Shadow probe would gate the home: gated stays false and
	// the weight is as if there were no probe.
	// +optional
	WouldGate bool `json:"wouldGate,omitempty"`

	// dampingFactor is how many times successThreshold the home's latest gate needs to
	// lift, under flapDamping; only while above 1.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=64
	DampingFactor int32 `json:"dampingFactor,omitempty"`

	// rampPercent is the share of its computed weight, in percent, that a home whose gate
	// lifted gets while it ramps back up under rampUp; only while the ramp lasts.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	RampPercent int32 `json:"rampPercent,omitempty"`

	// lastLiftTime is when the home's gate last lifted after passes in a row. It is
	// recorded only under flapDamping or rampUp, which measure from it; written as
	// lastProbeTime is.
	// +optional
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Format=date-time
	// +kubebuilder:validation:Pattern=`^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]([.][0-9]{1,9})?(Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9])$`
	// +kubebuilder:validation:MaxLength=35
	LastLiftTime *metav1.Time `json:"lastLiftTime,omitempty"`
}

// TrafficMapPassiveGate is one cluster's passive gate: what the traffic signal last read
// of its real requests, and the gate that reading and the ones before it set.
type TrafficMapPassiveGate struct {
	// signal is Known when the last reading of the traffic signal could be used, and
	// Unknown when it could not (see message); an Unknown reading moves nothing.
	// +required
	Signal TrafficSignalState `json:"signal"`

	// message says what the passive gate is doing (gated, would gate, left in traffic by
	// the cap, lifted), or else why the reading is Unknown.
	// +optional
	// +kubebuilder:validation:MaxLength=256
	Message string `json:"message,omitempty"`

	// requests is the last Known reading over the signal's window: the requests the
	// global gateway sent the cluster. While a gate (or a Shadow gate) holds, requests and
	// failures stay those of the reading that closed it.
	// +optional
	// +kubebuilder:validation:Minimum=0
	Requests *int64 `json:"requests,omitempty"`

	// failures is the part of requests that failed: 5xx answers and connection errors.
	// +optional
	// +kubebuilder:validation:Minimum=0
	Failures *int64 `json:"failures,omitempty"`

	// gated is true while an enforcing passive gate holds the cluster out.
	// +optional
	Gated bool `json:"gated,omitempty"`

	// wouldGate is true while a Shadow passive gate would hold the cluster out.
	// +optional
	WouldGate bool `json:"wouldGate,omitempty"`

	// capped is true while the reading would gate the cluster, but passive gates already
	// hold out maxEjectionPercent of the service's capacity: it is left in traffic.
	// +optional
	Capped bool `json:"capped,omitempty"`

	// count is how many passive gates came in a row: the ejection time's multiplier.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=1000
	Count int32 `json:"count,omitempty"`

	// since is when the current gate closed, written as lastProbeTime is.
	// +optional
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Format=date-time
	// +kubebuilder:validation:Pattern=`^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]([.][0-9]{1,9})?(Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9])$`
	// +kubebuilder:validation:MaxLength=35
	Since *metav1.Time `json:"since,omitempty"`

	// until is the earliest the current gate lifts, written as lastProbeTime is.
	// +optional
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Format=date-time
	// +kubebuilder:validation:Pattern=`^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]([.][0-9]{1,9})?(Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9])$`
	// +kubebuilder:validation:MaxLength=35
	Until *metav1.Time `json:"until,omitempty"`

	// rampPercent is the share of its computed weight, in percent, that a cluster whose
	// enforcing passive gate lifted gets while it ramps back up under the probe's rampUp;
	// only while the ramp lasts.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	RampPercent int32 `json:"rampPercent,omitempty"`

	// lastLiftTime is when the passive gate last lifted.
	// +optional
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Format=date-time
	// +kubebuilder:validation:Pattern=`^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]([.][0-9]{1,9})?(Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9])$`
	// +kubebuilder:validation:MaxLength=35
	LastLiftTime *metav1.Time `json:"lastLiftTime,omitempty"`
}

// TrafficSignalState says whether a reading of the traffic signal could be used.
// +kubebuilder:validation:Enum=Known;Unknown
type TrafficSignalState string

// The states of a traffic signal reading.
const (
	TrafficSignalKnown   TrafficSignalState = "Known"
	TrafficSignalUnknown TrafficSignalState = "Unknown"
)

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

	// healthy is true when the cluster has a ready replica, the probe does not gate it and
	// the operator does not refuse it (see refused). It ignores capacity.
	// +required
	Healthy bool `json:"healthy"`

	// capacity is what the weight was computed from.
	// +optional
	Capacity TrafficMapCapacity `json:"capacity,omitempty"`

	// probe is the routing probe's record, present once a configured probe has run for
	// this cluster.
	// +optional
	Probe *TrafficMapProbe `json:"probe,omitempty"`

	// passiveGate is the passive gate's record (spec.routing.probe.passiveGate), present
	// once the traffic signal has been read for this cluster.
	// +optional
	PassiveGate *TrafficMapPassiveGate `json:"passiveGate,omitempty"`

	// load is the load record (spec.routing.loadBalancing), present while the service
	// balances by load and the cluster takes part.
	// +optional
	Load *TrafficMapLoad `json:"load,omitempty"`

	// refused says why the operator itself sends this cluster no traffic: its endpoint is
	// outside the WorkloadCluster's allowedEndpointDomains, or the operator will not send
	// the probe there (the network guard refuses every address, or the URL or scheme is
	// unusable). It names the setting to change. While it is set, the weight is 0 whatever
	// the probe's allFailedPolicy, and healthy is false.
	// +optional
	// +kubebuilder:validation:MaxLength=1024
	Refused string `json:"refused,omitempty"`

	// drainRefs are the IDs, sorted, of the ome.io/traffic-drain overrides that hold this
	// entry at weight 0. A drain holds one cluster, so the entries hold at most 64 of them
	// in all.
	// +optional
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:MaxLength=253
	DrainRefs []string `json:"drainRefs,omitempty"`

	// unobservedSince is set while the manager cannot read the cluster (its WorkloadCluster
	// is not Ready: ConnectionFailed): since when. The entry keeps its last known endpoint
	// and capacity, and its probe alone decides its traffic, for up to the installation's
	// placement.observationGrace; past it the entry leaves, unless every home is unobserved.
	// Written as lastProbeTime is.
	// +optional
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Format=date-time
	// +kubebuilder:validation:Pattern=`^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]([.][0-9]{1,9})?(Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9])$`
	// +kubebuilder:validation:MaxLength=35
	UnobservedSince *metav1.Time `json:"unobservedSince,omitempty"`

	// tier is the failover tier the cluster is in (spec.routing.failover), unlisted for
	// one no tier names; empty without failover.
	// +optional
	// +kubebuilder:validation:MaxLength=63
	Tier string `json:"tier,omitempty"`

	// weightReason says why the weight is what it is, such as Routed, Gated or Drained.
	// +optional
	WeightReason WeightReason `json:"weightReason,omitempty"`

	// weightMessage is the whole cause of the weight, with every other cause that would
	// also hold the cluster at 0.
	// +optional
	// +kubebuilder:validation:MaxLength=896
	WeightMessage string `json:"weightMessage,omitempty"`

	// serving is the home's serving state, judged once by the routing reconciler from
	// everything the operator knows of it: every view reads it. Absent from a manager that
	// judges none.
	// +optional
	Serving ServingState `json:"serving,omitempty"`

	// warning says what about this entry may mislead without changing its weight: the
	// probe goes to another port than the one the global route sends to
	// (endpoint.backendPort), so a passing probe says nothing about the route's port.
	// +optional
	// +kubebuilder:validation:MaxLength=256
	Warning string `json:"warning,omitempty"`
}

// TrafficMapSpec is the routing table. The operator writes it; a hand edit is undone.
// Its bounds keep a map at its maxima within one etcd write (test/crdsize checks it).
// +kubebuilder:validation:XValidation:rule="!has(self.entries) || self.entries.map(e, has(e.drainRefs) ? size(e.drainRefs) : 0).sum() <= 64",message="the entries hold at most 64 drainRefs in all"
type TrafficMapSpec struct {
	// service is the InferenceService this map routes.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Service string `json:"service"`

	// placementPlanID identifies the placement the entries were built from: which
	// workload clusters serve the service, and at which endpoints. It changes when a home
	// joins or leaves, or moves its endpoint, and with nothing else. A placement may drain a
	// home that the plan no longer has once status.publisher.acknowledgedPlacementPlanID
	// equals it: the route no longer sends to that home.
	// +optional
	// +kubebuilder:validation:MaxLength=128
	PlacementPlanID string `json:"placementPlanID,omitempty"`

	// mode is the service's placement mode.
	// +optional
	Mode PlacementMode `json:"mode,omitempty"`

	// observedISVCGeneration is the service generation the map was built from.
	// +optional
	ObservedISVCGeneration int64 `json:"observedISVCGeneration,omitempty"`

	// allFailedPolicy is the allFailedPolicy of the probe the entries were built under;
	// empty when no probe applies. The publisher reads it: only Drain lets it write a route
	// with no backend that takes traffic over one that had some.
	// +optional
	AllFailedPolicy AllFailedPolicy `json:"allFailedPolicy,omitempty"`

	// failover is how the traffic splits over the service's failover tiers, absent when
	// the service has no failover setting.
	// +optional
	Failover *TrafficMapFailover `json:"failover,omitempty"`

	// entries are the service's homes, one per cluster, in cluster name order. A service
	// with more homes than a map holds is refused, and its map frozen.
	// +optional
	// +listType=map
	// +listMapKey=cluster
	// +kubebuilder:validation:MaxItems=64
	Entries []TrafficMapEntry `json:"entries,omitempty"`
}

// TrafficMapGatewayRef names the object the map is published through.
type TrafficMapGatewayRef struct {
	// group is the object's API group; empty is the core group.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	Group string `json:"group,omitempty"`

	// kind is the object's kind, such as HTTPRoute.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	Kind string `json:"kind"`

	// name is the object's name.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`

	// namespace is the object's namespace; empty is the map's.
	// +optional
	// +kubebuilder:validation:MaxLength=63
	Namespace string `json:"namespace,omitempty"`
}

// TrafficMapPublisherStatus is the publisher's journal of a map.
type TrafficMapPublisherStatus struct {
	// publisherName is the publisher the claims belong to.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=128
	PublisherName string `json:"publisherName"`

	// claimedTargets are the objects the publisher has claimed for the map, as
	// v1:httproute:<namespace>/<name>: the route it publishes, and while a route moves
	// (routeNamespace changed) the one it is leaving, until that one is drained and
	// deleted. A target claimed by one map is refused to every other.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=32
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=140
	ClaimedTargets []string `json:"claimedTargets,omitempty"`

	// observedOptionsDigest is the digest of the publisher options the map was last
	// published with (see docs/reference/crds.md for what it covers).
	// +optional
	// +kubebuilder:validation:MaxLength=71
	// +kubebuilder:validation:Pattern=`^sha256:[0-9a-f]{64}$`
	ObservedOptionsDigest string `json:"observedOptionsDigest,omitempty"`

	// acknowledgedPlacementPlanID is the spec.placementPlanID of the last map generation
	// the route carries: the placement the gateway's route has caught up with.
	// +optional
	// +kubebuilder:validation:MaxLength=128
	AcknowledgedPlacementPlanID string `json:"acknowledgedPlacementPlanID,omitempty"`

	// lastPositive is the last publication whose route sent traffic (some backend at a
	// positive weight).
	// +optional
	LastPositive *TrafficMapPublisherLastPositive `json:"lastPositive,omitempty"`
}

// TrafficMapPublisherLastPositive is a publication that sent traffic.
type TrafficMapPublisherLastPositive struct {
	// trafficMapGeneration is the map generation published.
	// +required
	// +kubebuilder:validation:Minimum=1
	TrafficMapGeneration int64 `json:"trafficMapGeneration"`

	// observedISVCGeneration is the InferenceService generation that map was built from.
	// +required
	// +kubebuilder:validation:Minimum=1
	ObservedISVCGeneration int64 `json:"observedISVCGeneration"`

	// planCompatibilityDigest identifies what the route was published into (its name,
	// gateway, hostname, backend port and backend kind): a publication under other
	// settings has another digest.
	// +required
	// +kubebuilder:validation:MaxLength=71
	// +kubebuilder:validation:Pattern=`^sha256:[0-9a-f]{64}$`
	PlanCompatibilityDigest string `json:"planCompatibilityDigest"`

	// targets are the route's backends and their weights, as v1:cluster:<cluster>.
	// +required
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=16
	Targets []TrafficMapPublisherTarget `json:"targets"`
}

// TrafficMapPublisherTarget is one backend of a publication and its weight.
type TrafficMapPublisherTarget struct {
	// target names the backend.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=264
	Target string `json:"target"`

	// weight is the backend's weight in the route.
	// +required
	// +kubebuilder:validation:Minimum=0
	Weight int64 `json:"weight"`
}

// TrafficMapStatus reports how the map stands. The routing reconciler writes sourceUID,
// the counts, the probe timings, routeGeneration, the explanations and its conditions; the
// publisher writes published, gatewayRef, observedTrafficMapGeneration, leftOutOfRoute,
// routeParents and the Published, PublicationFallback and RouteComplete conditions.
type TrafficMapStatus struct {
	// sourceUID is the UID of the InferenceService the map was built from.
	// +optional
	// +kubebuilder:validation:MaxLength=128
	SourceUID string `json:"sourceUID,omitempty"`

	// published is true while the global gateway's route carries this map.
	// +optional
	Published bool `json:"published,omitempty"`

	// gatewayRef names the route the map is published through. It stays set after a
	// failed publication, naming the route that keeps the last weights published.
	// +optional
	GatewayRef *TrafficMapGatewayRef `json:"gatewayRef,omitempty"`

	// observedTrafficMapGeneration is the map generation last published successfully.
	// +optional
	ObservedTrafficMapGeneration int64 `json:"observedTrafficMapGeneration,omitempty"`

	// publisher is the publisher's journal: which publisher wrote for the map, the routes it
	// claimed (recorded before it writes them, so a route is never written unrecorded), the
	// options it last published with, and the last publication that sent traffic.
	// +optional
	Publisher *TrafficMapPublisherStatus `json:"publisher,omitempty"`

	// homes is the number of entries in spec.entries: the workload clusters that serve the
	// service. Set with the Routable condition, for `kubectl get trafficmap -o wide`.
	// +optional
	// +kubebuilder:validation:Minimum=0
	Homes *int32 `json:"homes,omitempty"`

	// gatedHomes is the number of entries that the routing probe gates now.
	// +optional
	// +kubebuilder:validation:Minimum=0
	GatedHomes *int32 `json:"gatedHomes,omitempty"`

	// refusedHomes is the number of entries that the operator refuses (see an entry's
	// refused).
	// +optional
	// +kubebuilder:validation:Minimum=0
	RefusedHomes *int32 `json:"refusedHomes,omitempty"`

	// wouldGateHomes is the number of entries that a probe in Shadow mode would gate
	// (probe.wouldGate): their weight is unchanged, and an Enforce probe would take it.
	// +optional
	// +kubebuilder:validation:Minimum=0
	WouldGateHomes *int32 `json:"wouldGateHomes,omitempty"`

	// rampingHomes is the number of entries ramping back up after their gate lifted
	// (probe.rampPercent or passiveGate.rampPercent above 0, under the probe's rampUp).
	// +optional
	// +kubebuilder:validation:Minimum=0
	RampingHomes *int32 `json:"rampingHomes,omitempty"`

	// warnedHomes is the number of entries that carry a warning (see an entry's warning),
	// such as a probe that tests another port than the route's backend port.
	// +optional
	// +kubebuilder:validation:Minimum=0
	WarnedHomes *int32 `json:"warnedHomes,omitempty"`

	// lastProbeTime is the newest lastProbeTime of the entries: when the manager last
	// recorded a probe of any home. It stops moving when nothing probes the homes (the
	// manager stopped, or the map is frozen). Absent while no probe has run.
	// +optional
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Format=date-time
	LastProbeTime *metav1.Time `json:"lastProbeTime,omitempty"`

	// probePeriod is the period of the probe in force for the service (its own
	// spec.routing.probe, or the installation's), so that a reader that cannot see the
	// installation's settings can tell how old a lastProbeTime may be. Absent without a
	// probe.
	// +optional
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:MaxLength=32
	ProbePeriod *metav1.Duration `json:"probePeriod,omitempty"`

	// probeRecordInterval is the installation's routing.observer.recordInterval while a
	// probe is in force and it is set: a round that changes nothing but lastProbeTime may
	// go unwritten that long, so lastProbeTime may lag by as much.
	// +optional
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:MaxLength=32
	ProbeRecordInterval *metav1.Duration `json:"probeRecordInterval,omitempty"`

	// servingHomes is the number of entries whose serving state takes traffic (Serving,
	// Unobserved, StillServedAtZero): the homes that get requests, not the positive weights.
	// +optional
	// +kubebuilder:validation:Minimum=0
	ServingHomes *int32 `json:"servingHomes,omitempty"`

	// homeStates names every entry whose serving state is not Serving, as
	// "<cluster> <state> <reason>", separated by " | " (eight at most, then how many
	// more): with servingHomes, the map-level summary of the entries' serving states.
	// Empty when every home serves.
	// +optional
	// +kubebuilder:validation:MaxLength=1024
	HomeStates string `json:"homeStates,omitempty"`

	// verdictTime is when the routing reconciler last judged the homes' serving states
	// and recorded them (with a probe round, or a change). It stops moving when the
	// manager stops: an old verdictTime is a verdict that may no longer hold.
	// +optional
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Format=date-time
	VerdictTime *metav1.Time `json:"verdictTime,omitempty"`

	// routeGeneration is the map generation at which the entries last changed in what the
	// route is made of (which clusters, their endpoints and their weights). Most
	// generations only move probe records; a publisher whose observedTrafficMapGeneration
	// is at or past routeGeneration has published the map's current weights.
	// +optional
	// +kubebuilder:validation:Minimum=0
	RouteGeneration int64 `json:"routeGeneration,omitempty"`

	// excludedClusters are the clusters the service's placement selects that have no
	// entry, each with why: not Ready, not connected, no copy or no endpoint. It lists
	// the first 192 by name; noTraffic counts the rest.
	// +optional
	// +listType=map
	// +listMapKey=cluster
	// +kubebuilder:validation:MaxItems=192
	ExcludedClusters []ExcludedCluster `json:"excludedClusters,omitempty"`

	// noTraffic names every cluster the placement selects that takes no traffic (an entry
	// at weight 0, or an excluded cluster), each with its reason and cause, for
	// `kubectl get trafficmap -o wide`. Empty when every selected cluster takes traffic.
	// +optional
	// +kubebuilder:validation:MaxLength=4096
	NoTraffic string `json:"noTraffic,omitempty"`

	// leftOutOfRoute are the map's clusters that the route the publisher wrote leaves
	// out, each with why: their host is refused by the publish guard, has not resolved
	// yet, or their endpoint has no usable host. They get no traffic through the route.
	// Written by the publisher with RouteComplete; empty when the route carries every
	// cluster.
	// +optional
	// +listType=map
	// +listMapKey=cluster
	// +kubebuilder:validation:MaxItems=64
	LeftOutOfRoute []LeftOutCluster `json:"leftOutOfRoute,omitempty"`

	// routeParents are what the gateways themselves report on the route the map is
	// published through (the route's status.parents), read back by the publisher. Empty
	// while no gateway reports: some never write route status. Shown, never trusted
	// alone: TrafficApplied is judged on the gateway's own counters. The publisher's route
	// has one parent; the first 4 reports by parent are kept.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=4
	RouteParents []RouteParentStatus `json:"routeParents,omitempty"`

	// conditions include Routable, CapacityFallback, OverrideActive, SettingsAccepted,
	// TrafficApplied, Published, PublicationFallback and RouteComplete.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=8
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
// +kubebuilder:printcolumn:name="TARGETS",type=integer,JSONPath=`.status.homes`,priority=1
// +kubebuilder:printcolumn:name="SERVING",type=integer,JSONPath=`.status.servingHomes`,priority=1
// +kubebuilder:printcolumn:name="GATED",type=integer,JSONPath=`.status.gatedHomes`,priority=1
// +kubebuilder:printcolumn:name="REFUSED",type=integer,JSONPath=`.status.refusedHomes`,priority=1
// +kubebuilder:printcolumn:name="WOULD-GATE",type=integer,JSONPath=`.status.wouldGateHomes`,priority=1
// +kubebuilder:printcolumn:name="RAMPING",type=integer,JSONPath=`.status.rampingHomes`,priority=1
// +kubebuilder:printcolumn:name="WARNINGS",type=integer,JSONPath=`.status.warnedHomes`,priority=1
// +kubebuilder:printcolumn:name="PROBED",type=date,JSONPath=`.status.lastProbeTime`,priority=1
// +kubebuilder:printcolumn:name="VERDICT",type=date,JSONPath=`.status.verdictTime`,priority=1
// +kubebuilder:printcolumn:name="STATES",type=string,JSONPath=`.status.homeStates`,priority=1
// +kubebuilder:printcolumn:name="MESSAGE",type=string,JSONPath=`.status.conditions[?(@.type=="Routable")].message`,priority=1
// +kubebuilder:printcolumn:name="FROZEN",type=string,JSONPath=`.status.conditions[?(@.type=="SettingsAccepted")].message`,priority=1
// +kubebuilder:printcolumn:name="TIERS",type=string,JSONPath=`.spec.failover.summary`,priority=1
// +kubebuilder:printcolumn:name="NO-TRAFFIC",type=string,JSONPath=`.status.noTraffic`,priority=1
type TrafficMap struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the object's standard metadata: name, namespace, labels, owners.
	// +optional
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

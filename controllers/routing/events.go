package routing

// Event reasons on an InferenceService, for the transitions a person acts on. The routing
// reconciler records each on the service's TrafficMap too (see serviceEvents).
const (
	// EventHomeGated: a home failed failureThreshold probes in a row and lost its weight.
	EventHomeGated = "HomeGated"
	// EventHomeUngated: a home's gate lifted, after successThreshold passes in a row, or
	// because the probe policy changed or was turned off, or the home's endpoint changed,
	// or the operator refuses it now; the note says which (trafficmap.LiftCause).
	EventHomeUngated = "HomeUngated"
	// EventHomeWouldGate: a Shadow probe would have gated a home; its weight is unchanged.
	EventHomeWouldGate = "HomeWouldGate"
	// EventHomeWouldUngate: a Shadow probe would have lifted a home's gate.
	EventHomeWouldUngate = "HomeWouldUngate"
	// EventAllHomesProbeFailed: every home is gated and the allFailedPolicy applies.
	EventAllHomesProbeFailed = "AllHomesProbeFailed"
	// EventRoutingPolicyRefused: the service's routing settings were refused; its map is
	// frozen until they are fixed.
	EventRoutingPolicyRefused = "RoutingPolicyRefused"
	// EventEndpointRefused: a cluster's copy reports a status.url with user information, a
	// query or a fragment, or one too long for the TrafficMap; that home is left out.
	EventEndpointRefused = "EndpointRefused"
	// EventHomeRefused: the operator itself refuses a home (its network guard, its
	// endpoint's form, or its cluster's allowedEndpointDomains): weight 0. The note names
	// the setting to change. Sent again when the reason changes.
	EventHomeRefused = "HomeRefused"
	// EventHomeRefusalLifted: a refused home is no longer refused.
	EventHomeRefusalLifted = "HomeRefusalLifted"
	// EventHomeDrained: an ome.io/traffic-drain override started holding a home at weight 0.
	EventHomeDrained = "HomeDrained"
	// EventHomeUndrained: the last override holding a home was removed.
	EventHomeUndrained = "HomeUndrained"
	// EventHomeLeft: a cluster's entry left the map (its backend leaves the route); the
	// note gives the exclusion's reason and message.
	EventHomeLeft = "HomeLeft"
	// EventHomeJoined: a cluster got an entry in a map that already existed.
	EventHomeJoined = "HomeJoined"
	// EventHomeUnobserved: the manager cannot read a home's cluster (ConnectionFailed); the
	// home keeps its entry at its last known endpoint and capacity, and its probe decides.
	EventHomeUnobserved = "HomeUnobserved"
	// EventHomeObserved: an unobserved home's cluster can be read again.
	EventHomeObserved = "HomeObserved"
	// EventHomeCapacityCapped: a capacity report started holding a home at 0 replicas.
	EventHomeCapacityCapped = "HomeCapacityCapped"
	// EventHomeCapacityRestored: a capacity report no longer holds a home at 0 replicas.
	EventHomeCapacityRestored = "HomeCapacityRestored"
	// EventPassiveGated: an enforcing passive gate held a home out: its real requests, as
	// the gateway's counters show them, failed past failurePercent. The note gives the
	// ratio, the window and when the gate may lift.
	EventPassiveGated = "PassiveGated"
	// EventPassiveGateLifted: a passive gate lifted (its ejection time is over and its
	// probe passes), or the passive gate was turned off.
	EventPassiveGateLifted = "PassiveGateLifted"
	// EventPassiveWouldGate: a Shadow passive gate would have held a home out; its weight
	// is unchanged.
	EventPassiveWouldGate = "PassiveWouldGate"
	// EventHomeStillServedAtZero: the gateway's counters show that a home the route holds
	// at weight 0 still gets requests (serving state StillServedAtZero): the gateway does
	// not follow the route.
	EventHomeStillServedAtZero = "HomeStillServedAtZero"
	// EventPassiveGateCapped: a home's real requests fail enough for a passive gate, but
	// passive gates already hold out maxEjectionPercent of the service's capacity.
	EventPassiveGateCapped = "PassiveGateCapped"
	// EventLoadShifted: load balancing moved a home's share of its capacity weight (under
	// Shadow, the share it would set; the weight is unchanged). The note gives the reading.
	EventLoadShifted = "LoadShifted"
	// EventTrafficSpilled: a failover tier after the first started to take traffic,
	// because the tiers before it lost healthy capacity.
	EventTrafficSpilled = "TrafficSpilled"
	// EventTrafficReturned: a failover tier after the first stopped taking traffic: the
	// tiers before it are healthy enough to take all of it again.
	EventTrafficReturned = "TrafficReturned"
)

// Event actions (events.k8s.io/v1): what the operator was doing when the event happened.
const (
	actionProbe         = "Probe"
	actionRoute         = "Route"
	actionResolvePolicy = "ResolvePolicy"
)

// EventProbePortMismatch (Warning): a home's probe goes to another port than the one the
// global route sends to (endpoint.backendPort), so its passing probes prove nothing about
// the route's port; the note names both. Sent when the entry's warning starts or changes,
// not every probe round.
const EventProbePortMismatch = "ProbePortMismatch"

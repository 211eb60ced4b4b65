package controllers

// Event reasons on an InferenceService, for the transitions a person acts on.
const (
	// EventHomeGated: a home failed failureThreshold probes in a row and lost its weight.
	EventHomeGated = "HomeGated"
	// EventHomeUngated: a home's gate lifted, after successThreshold passes in a row or
	// because the probe policy changed or was turned off.
	EventHomeUngated = "HomeUngated"
	// EventAllHomesProbeFailed: every home is gated and the allFailedPolicy applies.
	EventAllHomesProbeFailed = "AllHomesProbeFailed"
	// EventRoutingPolicyRefused: the service's routing settings were refused; its map is
	// frozen until they are fixed.
	EventRoutingPolicyRefused = "RoutingPolicyRefused"
	// EventHomeDrained: an ome.io/traffic-drain override started holding a home at weight 0.
	EventHomeDrained = "HomeDrained"
	// EventHomeUndrained: the last override holding a home was removed.
	EventHomeUndrained = "HomeUndrained"
)

// Event actions (events.k8s.io/v1): what the operator was doing when the event happened.
const (
	actionProbe         = "Probe"
	actionRoute         = "Route"
	actionResolvePolicy = "ResolvePolicy"
)

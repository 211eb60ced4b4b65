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
	// EventEndpointRefused: a cluster's copy reports a status.url with user information, a
	// query or a fragment, or one too long for the TrafficMap; that home is left out.
	EventEndpointRefused = "EndpointRefused"
)

// Event actions (events.k8s.io/v1): what the operator was doing when the event happened.
const (
	actionProbe         = "Probe"
	actionRoute         = "Route"
	actionResolvePolicy = "ResolvePolicy"
)

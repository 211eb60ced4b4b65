package v1beta1

// ServingState is the one answer, for every view of a TrafficMap, to "does this home take
// traffic, and does the gateway do what the map says?". The routing reconciler judges it
// once per home (pkg/verdict) from the weight and its reason, what the publisher's route
// leaves out, what the gateway's own counters say (TrafficApplied) and whether the
// home's member can be read, and writes it into the entry; the views read it.
// +kubebuilder:validation:Enum=Serving;HeldOut;HeldOutUnconfirmed;StillServedAtZero;LeftOutOfRoute;Unobserved;Unknown
type ServingState string

// The serving states. Serving, Unobserved and StillServedAtZero take traffic; the others
// take none.
const (
	// ServingStateServing: the route sends the home traffic at its weight.
	ServingStateServing ServingState = "Serving"
	// ServingStateHeldOut: the map holds the home at weight 0 (the weight reason says
	// what holds it), and the gateway's own counters confirm it gets no request.
	ServingStateHeldOut ServingState = "HeldOut"
	// ServingStateHeldOutUnconfirmed: the map holds the home at weight 0, and nothing has
	// confirmed yet that the gateway stopped sending it requests: no traffic signal is
	// set, its reading is unknown or pending, or the route has not carried the 0 yet.
	ServingStateHeldOutUnconfirmed ServingState = "HeldOutUnconfirmed"
	// ServingStateStillServedAtZero: the map holds the home at weight 0, but the gateway's
	// counters show it still gets requests: the gateway does not follow the route (a lost
	// update).
	ServingStateStillServedAtZero ServingState = "StillServedAtZero"
	// ServingStateLeftOutOfRoute: the map gives the home a weight, but the route the
	// publisher wrote leaves it out (status.leftOutOfRoute), so it gets no traffic.
	ServingStateLeftOutOfRoute ServingState = "LeftOutOfRoute"
	// ServingStateUnobserved: the control plane cannot read the home's member (the entry's
	// unobservedSince); the home takes traffic at its last known capacity while its probe
	// passes.
	ServingStateUnobserved ServingState = "Unobserved"
	// ServingStateUnknown: the home has a weight, but the publisher has not said that a
	// route carries the map (Published is not True).
	ServingStateUnknown ServingState = "Unknown"
)

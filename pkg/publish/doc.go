// Package publish plans how a TrafficMap is published to the global gateway: the Gateway
// API HTTPRoute that carries the map's weights, and one backend per workload cluster for
// the route to send to (an ExternalName Service, or an Envoy Gateway Backend). It is pure:
// the publisher controller gathers the map, its InferenceService and the installation's
// endpoint settings, asks Build for the plan, and writes what it returns.
//
// The names, labels and messages follow OME's built-in "gatewayapi" publisher, so that
// objects and conditions read the same as OME's.
package publish

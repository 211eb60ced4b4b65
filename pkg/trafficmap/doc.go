// Package trafficmap builds a service's TrafficMap entries and its Routable condition
// from its homes, their probe states and the probe policy, as pure functions: the weight
// algorithm lives here and nowhere else.
package trafficmap

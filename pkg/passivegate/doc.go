// Package passivegate decides the passive gate: a gate set on what the global gateway saw of
// a workload cluster's real requests, not on what the probe saw from the control plane.
//
// A cluster whose failed requests (5xx answers and connection errors, as the traffic
// signal's failures query counts them) reach failurePercent of at least minRequests over the
// signal's window is gated, unless the passive gates already hold out maxEjectionPercent of
// the service's capacity: the cap, after Envoy's max_ejection_percent, keeps a fault that
// shows on every cluster at once (a bad request pattern, the gateway's own trouble) from
// emptying the service. A gated cluster gets no requests, so its counters can never show
// it recovered: it stays out for an ejection time that grows with each gate in a row
// (baseEjectionTime x count, capped at maxEjectionTime, after Envoy's base_ejection_time),
// and lifts after that only while its probe passes. A reading that is not Known never
// gates and never lifts.
//
// The package is pure: the routing reconciler gives it each cluster's reading, capacity,
// probe verdict and last state, and records what Decide returns. In Shadow mode (the
// default) the same decisions are made and recorded as wouldGate, and nothing moves.
package passivegate

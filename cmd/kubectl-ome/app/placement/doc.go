// Package placement is `kubectl ome placement endpoint`: a read-only view of how a
// service's TrafficMap routes it, built from what the operator recorded. It never probes an
// endpoint itself.
package placement

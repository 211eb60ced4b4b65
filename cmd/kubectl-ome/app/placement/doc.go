// Package placement is `kubectl ome placement`: read-only views of a service built from what
// the operator and the control plane recorded. `status` is where the service is placed,
// `explain` its routing settings and the registered workload clusters, and `endpoint` how
// its TrafficMap routes it. None of them probes an endpoint or reads a workload cluster.
package placement

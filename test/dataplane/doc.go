// Package dataplane starts everything a request crosses on its way to a model server: a
// control plane and workload clusters (envtest API servers), the manager's binary with the
// publisher writing ExternalName backends, one model server per cluster on a loopback
// address of its own, and HAProxy Ingress with a real haproxy following the published
// HTTPRoute. The data-plane suite (test/integration/dataplane), the failover benchmark
// (test/bench/failover) and the load balancing benchmark (test/bench/load) run on it.
package dataplane

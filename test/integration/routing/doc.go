// Package routing is the operator's end-to-end suite: a control-plane API server and
// workload-cluster API servers started by envtest, the controllers running in a real
// manager against them, and real HTTP servers on loopback as the model endpoints.
package routing

// Command demo shows the routing operator at work on one machine, with no cluster: it
// starts a control-plane API server and two workload-cluster API servers, two stand-ins
// for model servers, the manager binary and HAProxy Ingress with a real haproxy, then plays
// a short story of a cluster's probe failing and recovering while it prints what kubectl
// shows at each step, and how many of a batch of real requests through haproxy each
// model server received.
//
// Run it with `make demo`, which builds the API servers, kubectl and the manager first.
package main

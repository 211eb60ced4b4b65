// Command demo shows the routing operator at work on one machine, with no cluster: it
// starts a control-plane API server and two workload-cluster API servers, two stand-ins
// for model servers, and the manager binary, then plays a short story of a cluster's
// probe failing and recovering while it prints what kubectl shows at each step.
//
// Run it with `make demo`, which builds the API servers, kubectl and the manager first.
package main

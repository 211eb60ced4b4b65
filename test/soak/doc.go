// Package soak is the operator's soak and fault harness: the bench's fleet (a control plane
// and three workload clusters started by envtest, 200 routed services, loopback endpoints)
// run for half an hour by two replicas of the real manager binary with leader election,
// while homes flap, the leader is killed with SIGKILL every few minutes, a TCP proxy slows
// the control plane's API server down, and another cuts one member off for longer than its
// grace period. A watcher checks every version of every TrafficMap against what the
// endpoints really answered, and the run prints what it sampled each minute. It runs only
// with OME_SOAK=1 (make soak sets it); `go test ./...` runs just the unit tests of its
// checkers.
package soak

// Package bench is the operator's end-to-end benchmark: a control plane and three workload
// clusters started by envtest, the controllers in a manager in this process, 200 routed
// services, and one loopback HTTP server per cluster standing in for the model endpoints.
// It measures TrafficMap writes per map per period in steady state and how long after the
// threshold-th failure a failing home's weight reaches 0. It runs only with OME_BENCH=1
// (make bench sets it), so `go test ./...` skips it, and it reports figures without
// asserting any.
package bench

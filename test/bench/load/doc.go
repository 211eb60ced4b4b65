// Package load measures weights that follow the model servers' load, end to end (issue 55):
// two workload clusters whose stand-in model servers serve at 2:1 but carry equal static
// weights, under a steady Poisson load of 80% of their total capacity sent as real
// requests through haproxy (HAProxy Ingress following the published HTTPRoute), first with
// the static weights and then with spec.routing.loadBalancing in Enforce. It prints the
// queue wait the model servers report (p50 and p95) in both modes, how many signal
// intervals the shares take to settle after the load steps up and whether they then stay
// within one step, how long they take to come back once it steps down, and a failing
// cluster's gate delay with load balancing off and on. It runs only with OME_BENCH=1
// (make bench-load) and reports, never asserts, a time.
package load

// Package failover measures failover end to end, in requests: a steady load through
// haproxy (HAProxy Ingress following the published HTTPRoute) while one cluster's model
// server flips between failing and serving, with the time from its first failing answer
// to the last request that reaches it, split into the probe's detection, the operator,
// the publisher and the gateway. It runs only with OME_BENCH=1 (make bench-failover).
package failover

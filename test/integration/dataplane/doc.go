// Package dataplane sends real requests through a real gateway that follows the routes the
// publisher writes: HAProxy Ingress and haproxy, in front of one model server per workload
// cluster. It counts which server answered each request, to show that a gate, a drain and
// a capacity report of 0 take traffic away from a cluster, and that the all-failed policies
// do what they say, in the requests themselves.
package dataplane

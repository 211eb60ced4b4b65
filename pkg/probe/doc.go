// Package probe holds the routing probe's rules as pure functions: the policy and its
// validation (shared by the installation config and spec.routing.probe), resolution of the
// policy that applies to a service, its digest, the classification of an HTTP outcome
// into Passing, Failing or Unknown, and the per-home counter and gate state machine. When
// probes are sent is pkg/schedule's.
package probe

// Package publisher writes each TrafficMap's publication for the global Gateway: the
// publisher reconciler (Reconciler) turns a map into the plan of pkg/publish and makes the
// control plane match it. It runs on the leader only, once the control plane serves
// Gateway API HTTPRoutes (Setup).
//
// What it writes, as the only writer of each:
//   - the HTTPRoute, backend Services and Envoy Gateway Backends of a map (labelled as
//     the publisher's, see CacheByObject), pruning what the plan no longer has;
//   - the publisher's finalizer on a TrafficMap (Finalizer);
//   - a TrafficMap's publication share of the status, applied under
//     mapstatus.PublisherStatusManager: published, gatewayRef,
//     observedTrafficMapGeneration and the Published and PublicationFallback conditions;
//   - the publisher's events (EventBackendRefused, EventPublicationWithdrawn) on the
//     map.
package publisher

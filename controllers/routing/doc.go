// Package routing keeps the TrafficMap of every routed InferenceService: the routing
// reconciler (Reconciler, phases.go). It schedules the two observers of controllers/probing,
// the prober and the capacity poller, through their Sync, Forget and Events alone.
//
// What it writes, as the only writer of each:
//   - a TrafficMap's spec and metadata (its entries and weights, owner reference, the
//     ome.io/departed-probes annotation), creating and deleting the map;
//   - a TrafficMap's routing share of the status, applied under
//     mapstatus.RoutingStatusManager: sourceUID, homes, gatedHomes, refusedHomes,
//     excludedClusters, noTraffic and the Routable, CapacityFallback and OverrideActive
//     conditions;
//   - an InferenceService's status.placement;
//   - the routing events (Event*) on the service and its map, and every per-map gauge
//     (Collectors), which it alone sets and deletes.
//
// The prober and the poller write no object: they hand their results to the reconciler,
// which merges them into the map.
package routing

// Package mapstatus applies one writer's share of a TrafficMap's status. The routing
// reconciler and the publisher both write a map's status, each only its own fields and
// conditions, by server-side apply under its own field manager (RoutingStatusManager,
// PublisherStatusManager), so that neither drops what the other wrote. It writes nothing of
// its own: each caller names the share it owns.
package mapstatus

// Package applied decides the TrafficMap's TrafficApplied condition: whether the global
// gateway's own counters show that it follows the route the publisher wrote.
//
// What it can see is a withdrawal. A cluster the route holds at weight 0 must stop getting
// requests; the traffic signal (routing.trafficSignal) counts the requests the gateway sent
// it over each window. A window that starts after the route carried the weight 0 and holds
// no request is the evidence that traffic moved. A window that starts at least one
// interval after it (time for the gateway to load the route) and still holds requests is
// the evidence that it did not: a lost update.
//
// Times are upper bounds, never guesses in the flattering direction: the route counts as
// written when the routing reconciler first sees the publisher's word that it carries the
// map's generation, and traffic counts as moved at the start of the first empty window
// after that, so a measured "decision to traffic moved" is at most one interval late.
//
// The package is pure: the routing reconciler keeps the withdrawals in memory and gives
// it each one's last reading.
package applied

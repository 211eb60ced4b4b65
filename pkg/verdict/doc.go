// Package verdict judges each home of a TrafficMap once: one serving state, with a reason
// and a message, from everything the operator knows of the home (its weight and weight
// reason, whether the publisher's route leaves it out, what the gateway's own counters
// say, whether its member can be read). The routing reconciler writes the state into the
// entry and a summary into the map's status; every view reads them, none judges again.
// The views that can tell how old the verdict is (the plugin's) show Stale over it when
// the manager stopped or lags (Seen).
package verdict

// Package probing watches the homes of every routed InferenceService from the leader: the
// prober (Prober) sends each home's routing probe and keeps its counts and gate, the
// capacity poller (Poller) reads each home's capacity report into a window, and the signal
// poller (SignalPoller) reads each home's traffic signal for the passive gate and
// TrafficApplied from a SignalSource (PrometheusSource, signal_prometheus.go). None writes
// an object; the routing reconciler (controllers/routing) asks them for the homes' states
// and verdicts and merges those into the TrafficMap it writes.
//
// # Setup
//
// The manager makes one of each with NewProber, NewPoller and NewSignalPoller (this one
// only with routing.trafficSignal set), all on the one shared pkg/observer client, and
// adds them as runnables: they need leader election, so only
// the leader probes and polls. Their metrics are Collectors, registered beside routing's.
//
// # Usage
//
// The reconciler owns the list of homes. Each reconcile hands a map's homes to Sync
// (ProbeTarget, PollTarget or SignalTarget, one a home) and gets back every home's
// current state, verdict or reading; a home left out stops being watched, and Forget drops a whole map. Between
// reconciles, Events says which maps have new results: the prober's ProbeNotice also says
// how urgent the write is (a gate or a lift first, then an ended run of failures, then the
// rest), which the reconciler turns into queue priorities.
//
// # Implementation notes
//
// All three are policies on pkg/schedule's engine, which decides when a home is due and how many
// requests are in flight, fairly between namespaces and between the maps of each. State
// lives only in memory: a new leader restores a home's probe counts and gate from the
// map's persisted probe block (when made under the same policy digest), and a home that
// left its map for less than DepartedHomeMemory comes back with its state. Capacity
// windows are never restored: they start empty after a restart or a changed setting, and
// neither are signal readings (the passive gates they set are in the map).
//
// The per-map gauges (gated homes, would-gate homes and the rest) are the reconciler's,
// set and deleted by it alone, so a map frozen by a refused setting keeps them after the
// prober has forgotten it. This package keeps only its own counters: probe results,
// lateness and the wait of a transition for the reconciler.
package probing

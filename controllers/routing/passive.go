package routing

import (
	"time"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/controllers/probing"
	"github.com/ome-routing/operator/pkg/passivegate"
	"github.com/ome-routing/operator/pkg/probe"
	"github.com/ome-routing/operator/pkg/publish"
	"github.com/ome-routing/operator/pkg/trafficmap"
)

// This file owns the passive gate's part of the attach phase: each home's reading of the
// traffic signal (from the signal poller), the decision (pkg/passivegate) taken from the
// state the map last recorded, and the record written back on the home. The gate's state
// lives in the map, so a new leader carries every passive gate; the readings live in the
// poller's memory only.

// passivePolicy is the service's passive gate, nil when its probe sets none (or there is
// no probe).
func passivePolicy(res probe.Resolution) *passivegate.Policy {
	if res.Mode != probe.ModePolicy {
		return nil
	}
	return res.Policy.PassiveGate
}

// attachPassiveGates decides every home's passive gate and puts its record on it. It
// returns the earliest time a gate's ejection ends or a passive ramp takes its next step
// (zero when neither): nothing else may trigger a reconcile then.
func (r *Reconciler) attachPassiveGates(s *routingScope) time.Time {
	policy := passivePolicy(s.policy)
	if policy == nil {
		return time.Time{}
	}
	recorded := map[string]*omev1beta1.TrafficMapPassiveGate{}
	if s.current != nil {
		for _, e := range s.current.Spec.Entries {
			recorded[e.Cluster] = e.PassiveGate
		}
	}
	readings := s.readings
	now := time.Now()
	var homes []passivegate.Home
	var at []int
	for i, h := range s.homes {
		if h.Refused != "" {
			// The operator sends a refused home nothing, and the route gives it nothing.
			continue
		}
		homes = append(homes, passivegate.Home{
			Cluster:      h.Cluster,
			Capacity:     int64(max(min(h.Allocated, h.Ready), 0)),
			Reading:      readings[h.Cluster],
			ProbePassing: h.Probe != nil && h.Probe.Result == omev1beta1.ProbePassing && !h.Probe.Gated,
			State:        passivegate.FromRecord(recorded[h.Cluster]),
		})
		at = append(at, i)
	}
	var next time.Time
	probePolicy := s.policy.Policy
	for j, d := range passivegate.Decide(*policy, homes, now) {
		h := &s.homes[at[j]]
		h.PassiveGate = passivegate.Record(d, homes[j].Reading, policy.Enforced(), recorded[h.Cluster])
		if d.State.Gated && d.State.Until.After(now) {
			next = earliest(next, d.State.Until)
		}
		// A lift comes back through the probe's rampUp, a step each probe period.
		if h.PassiveGate.RampPercent = policy.RampPercent(d.State, now, probePolicy.RampShare); h.PassiveGate.RampPercent > 0 {
			next = earliest(next, now.Add(probePolicy.NextRampStep(now.Sub(d.State.LastLift))))
		}
	}
	return next
}

// readSignal syncs the signal poller with the homes to read and keeps their last
// readings in s: every home the operator sends traffic to while the service has a passive
// gate, and every home the map holds at weight 0 in the route (TrafficApplied's evidence).
// A map with neither is not read.
func (r *Reconciler) readSignal(s *routingScope) {
	policy := passivePolicy(s.policy)
	withdrawn := r.applied.clusters(s.key)
	var read []trafficmap.Home
	for _, h := range s.homes {
		if (policy != nil && h.Refused == "") || withdrawn[h.Cluster] {
			read = append(read, h)
		}
	}
	if len(read) == 0 {
		r.Signal.Forget(s.key)
		s.readings = nil
		return
	}
	s.readings = r.Signal.Sync(s.key, policy, r.signalTargets(s, read))
}

// signalTargets are the homes to read, each with the names of what the publisher writes
// for it (publish.HomeBackends): the route, the cluster's backend, and its place among
// the route rule's backendRefs, in the publisher's backend order over all the map's homes,
// refused ones included.
func (r *Reconciler) signalTargets(s *routingScope, read []trafficmap.Home) []probing.SignalTarget {
	clusters := make([]string, 0, len(s.homes))
	for _, h := range s.homes {
		clusters = append(clusters, h.Cluster)
	}
	published := publish.HomeBackends(s.key.Namespace, s.key.Name, r.RouteNamespace, clusters)
	targets := make([]probing.SignalTarget, 0, len(read))
	for _, h := range read {
		b := published[h.Cluster]
		targets = append(targets, probing.SignalTarget{
			Cluster: h.Cluster, Namespace: s.key.Namespace, Service: s.key.Name,
			Route: b.Route, RouteNamespace: b.RouteNamespace, Backends: b.Backends, BackendPosition: b.Position,
		})
	}
	return targets
}

package routing

import (
	"fmt"
	"slices"
	"time"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/capacity"
	"github.com/ome-routing/operator/pkg/loadbalance"
	"github.com/ome-routing/operator/pkg/trafficmap"
)

// This file owns load balancing's part of the attach phase (spec.routing.loadBalancing):
// which setting applies, each home's load reading (from the load poller), the share
// decided from it and the state the map last recorded (pkg/loadbalance), and the record
// written back on the home, which trafficmap.Build applies to the weight. The shares live
// in the map, so a new leader keeps them; the readings live in the poller's memory only.

// loadServicePath is where a service sets its own load balancing, for its errors.
const loadServicePath = "spec.routing.loadBalancing"

// loadSetting is the load balancing that applies to the service: its own block, which
// replaces the installation's as a whole (`disabled: true` turns it off), else the
// installation's; nil when none applies. A block that breaks a rule is refused, which
// freezes the service's map.
func (r *Reconciler) loadSetting(isvc *omev1beta1.InferenceService) (*loadbalance.Policy, error) {
	if isvc.Spec.Routing == nil || isvc.Spec.Routing.LoadBalancing == nil {
		return r.InstallationLoadBalancing, nil
	}
	p, err := loadbalance.FromSpec(isvc.Spec.Routing.LoadBalancing, loadServicePath, r.Load.Interval())
	if err != nil {
		return nil, fmt.Errorf("validate routing policy: %w", err)
	}
	return p, nil
}

// readLoad syncs the load poller with the homes the operator sends traffic to while the
// service balances by load, and keeps their last readings in s.
func (r *Reconciler) readLoad(s *routingScope) {
	if s.load == nil {
		r.Load.Forget(s.key)
		s.loadReadings = nil
		return
	}
	var read []trafficmap.Home
	for _, h := range s.homes {
		if h.Refused == "" {
			read = append(read, h)
		}
	}
	s.loadReadings = r.Load.Sync(s.key, s.load, r.signalTargets(s, read))
}

// attachLoad decides every home's share and puts its load record on it. It returns the
// earliest time a share that waits for minInterval may move (zero when none waits): a
// steady reading sends no event, so nothing else would look again then.
func (r *Reconciler) attachLoad(s *routingScope) time.Time {
	if s.load == nil {
		return time.Time{}
	}
	recorded := map[string]*omev1beta1.TrafficMapLoad{}
	if s.current != nil {
		for _, e := range s.current.Spec.Entries {
			recorded[e.Cluster] = e.Load
		}
	}
	drained := drainedClusters(s.overrides)
	now := time.Now()
	homes := make([]loadbalance.Home, len(s.homes))
	for i, h := range s.homes {
		homes[i] = loadbalance.Home{
			Cluster:  h.Cluster,
			Replicas: max(h.Ready, 0),
			Eligible: loadEligible(h) && !slices.Contains(drained, h.Cluster),
			Reading:  s.loadReadings[h.Cluster],
			State:    loadbalance.FromRecord(recorded[h.Cluster]),
		}
	}
	var next time.Time
	for i, d := range loadbalance.Decide(*s.load, homes, now) {
		h := &s.homes[i]
		if h.Refused != "" {
			h.Load = nil
			continue
		}
		h.Load = loadbalance.Keep(*s.load, loadbalance.Record(d, s.load.Mode, recorded[h.Cluster]), recorded[h.Cluster])
		if !d.Next.IsZero() {
			next = earliest(next, d.Next)
		}
	}
	return next
}

// loadEligible says whether the home takes traffic before load has its say: not refused
// or gated, with ready replicas and admitted ones its capacity report leaves. Load
// divides only what the rest leaves.
func loadEligible(h trafficmap.Home) bool {
	gated := (h.Probe != nil && h.Probe.Gated) || (h.PassiveGate != nil && h.PassiveGate.Gated)
	return h.Refused == "" && !gated && h.Ready > 0 && capacity.Apply(max(h.Allocated, 0), h.Ceiling).Allocated > 0
}

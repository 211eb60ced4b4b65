package routing

import (
	"context"
	"errors"
	"slices"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/controllers/internal/phase"
	"github.com/ome-routing/operator/controllers/internal/priority"
	"github.com/ome-routing/operator/pkg/capacity"
	"github.com/ome-routing/operator/pkg/drain"
	"github.com/ome-routing/operator/pkg/loadbalance"
	"github.com/ome-routing/operator/pkg/passivegate"
	"github.com/ome-routing/operator/pkg/probe"
	"github.com/ome-routing/operator/pkg/trafficmap"
	"github.com/ome-routing/operator/pkg/verdict"
)

// routingScope is what one reconcile of a service learns, phase by phase. Each phase reads
// what the ones before it set and adds its own part.
type routingScope struct {
	key types.NamespacedName

	// read
	isvc    *omev1beta1.InferenceService
	current *omev1beta1.TrafficMap // the map as last written, nil when there is none
	// resolve
	policy    probe.Resolution
	factors   map[string]resource.Quantity // spec.routing.capacityFactors, parsed
	polls     capacity.Resolution
	overrides []drain.Override
	failover  *omev1beta1.RoutingFailover // the setting that applies, nil when none does
	tiersPath string                      // where failover was set, for its errors
	// gather and attach
	in         gathered
	homes      []trafficmap.Home              // the gathered homes, then those of unconnected members as last written
	nextExpiry time.Time                      // when the earliest capacity reading expires, zero if none does
	readings   map[string]passivegate.Reading // the traffic signal of the homes read (readSignal)
	// load is the load balancing that applies, nil when none does; loadReadings the load
	// of the homes read (readLoad).
	load         *loadbalance.Policy
	loadReadings map[string]loadbalance.Reading
	// build
	result trafficmap.Result
	// writeSpec
	written *omev1beta1.TrafficMap
	// judgeApplied
	trafficApplied metav1.Condition
	counters       map[string]verdict.Counters // what the gateway's counters say of each home at weight 0
}

// phases are the steps of a reconcile, in order: read the service and its map, resolve its
// settings, gather its homes from the members, attach probe records and capacity
// ceilings, build the entries, judge their serving states, write the spec, judge whether
// the gateway follows the route (TrafficApplied) and the serving states with what it
// read (verdict.go), announce what changed (events and gauges), and write the status.
// Each phase may end the reconcile.
func (r *Reconciler) phases() []phase.Phase[routingScope] {
	return []phase.Phase[routingScope]{r.read, r.resolve, r.gatherHomes, r.attach, r.build, r.prejudge, r.writeSpec, r.judgeApplied,
		r.judgeHomes, r.announceChanges, r.writeStatus}
}

// Reconcile brings one service's TrafficMap up to date.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	release, yield := r.lane.Enter(ctx, req)
	if yield {
		return ctrl.Result{RequeueAfter: priority.YieldDelay}, nil
	}
	defer release()
	s := &routingScope{key: req.NamespacedName}
	if out := phase.Run(ctx, s, r.phases()); out.Done {
		return out.Result, out.Err
	}
	return r.requeue(s)
}

// read gets the service and its map. A service gone, one no longer routed, and a map of
// the service's name that it does not control end the reconcile.
func (r *Reconciler) read(ctx context.Context, s *routingScope) phase.Outcome {
	reader := r.readerFor(s.key)
	s.isvc = &omev1beta1.InferenceService{}
	if err := reader.Get(ctx, s.key, s.isvc); err != nil {
		if apierrors.IsNotFound(err) {
			return phase.Finish(r.gone(ctx, s.key))
		}
		return phase.Finish(ctrl.Result{}, err)
	}
	current, err := r.currentMap(ctx, reader, s.isvc)
	if errors.Is(err, errNotControlled) {
		// Someone else's object: never touch it, and don't retry until something changes.
		ctrl.LoggerFrom(ctx).Error(err, "Leaving TrafficMap alone", "InferenceService", klog.KObj(s.isvc))
		return phase.Finish(ctrl.Result{}, nil)
	}
	if err != nil {
		return phase.Finish(ctrl.Result{}, err)
	}
	s.current = current
	if !r.routed(s.isvc) {
		r.forgetService(s.key)
		return phase.Finish(r.retryConflict(s.key, r.deleteMap(ctx, current)))
	}
	return phase.Proceed
}

// resolve checks the service's probe, capacity poll, drains, failover, load balancing and retry. A refused setting freezes
// the service's map as it is.
func (r *Reconciler) resolve(ctx context.Context, s *routingScope) phase.Outcome {
	var err error
	if s.policy, s.factors, err = r.routingPolicy(s.isvc); err == nil {
		if s.polls, err = capacity.Resolve(r.Capacity, serviceCapacity(s.isvc), r.CapacityLimits); err == nil {
			if s.overrides, err = parseDrains(s.isvc); err == nil {
				if s.failover, s.tiersPath, err = r.failoverSetting(s.isvc); err == nil {
					if s.load, err = r.loadSetting(s.isvc); err == nil {
						err = checkRetry(s.isvc)
					}
				}
			}
		}
	}
	if err != nil {
		return phase.Finish(r.retryConflict(s.key, r.refuse(ctx, s.isvc, s.current, err)))
	}
	return phase.Proceed
}

// gatherHomes reads the candidate clusters and the service's copy on each, and keeps the
// homes of members the manager cannot read (keepUnobserved).
func (r *Reconciler) gatherHomes(ctx context.Context, s *routingScope) phase.Outcome {
	in, err := r.gather(ctx, s.isvc)
	if err != nil {
		return phase.Finish(ctrl.Result{}, err)
	}
	s.in = in
	s.in.keepUnobserved(s.current, time.Now(), r.ObservationGrace)
	r.announceRefusedEndpoints(ctx, s.isvc, in.refused)
	return phase.Proceed
}

// attach gives every home its probe record and capacity ceiling, and keeps the entries of
// members not connected yet as they were last written.
func (r *Reconciler) attach(ctx context.Context, s *routingScope) phase.Outcome {
	r.attachProbes(s.key, s.isvc.UID, s.policy, s.in.homes, s.current)
	s.nextExpiry = earliest(r.attachCeilings(s.key, s.polls, s.in.homes), s.in.unobservedUntil)
	s.homes = s.in.homes
	if held := s.in.held(s.current); len(s.in.pending) > 0 {
		// Entries of unconnected members stay as last written, capacity included: they
		// are neither probed nor polled. The connection brings an event for every copy on
		// the member; the retry in requeue is in case it came before this reconcile read it.
		ctrl.LoggerFrom(ctx).V(1).Info("Keeping the entries of unconnected members as last written",
			"InferenceService", klog.KObj(s.isvc), "members", s.in.pending)
		if s.policy.Mode == probe.ModePolicy {
			// The probe's mode may have changed since they were written.
			for i := range held {
				held[i].Probe = probe.Recast(held[i].Probe, s.policy.Policy, s.policy.Digest)
			}
		}
		s.homes = append(slices.Clip(s.homes), held...)
	}
	// After the held homes: the gateway still counts their traffic, and the cap counts
	// their capacity.
	r.readSignal(s)
	s.nextExpiry = earliest(s.nextExpiry, r.attachPassiveGates(s))
	// After the gates: load divides only what they leave.
	r.readLoad(s)
	s.nextExpiry = earliest(s.nextExpiry, r.attachLoad(s))
	return phase.Proceed
}

// build computes the entries: weights, failover tiers, the all-failed policy, drains, and
// why each weight is what it is. A service with more homes than a map holds is refused, and
// so is one whose tiers claim a cluster twice.
func (r *Reconciler) build(ctx context.Context, s *routingScope) phase.Outcome {
	if err := trafficmap.CheckHomes(len(s.homes)); err != nil {
		return phase.Finish(r.retryConflict(s.key, r.refuse(ctx, s.isvc, s.current, err)))
	}
	tiers, err := assignTiers(s.failover, s.tiersPath, s.homes, s.in.labels)
	if err != nil {
		return phase.Finish(r.retryConflict(s.key, r.refuse(ctx, s.isvc, s.current, err)))
	}
	result := trafficmap.Build(trafficmap.Input{
		Candidates:      len(s.in.placement.Candidates),
		Homes:           s.homes,
		CapacityFactors: s.factors,
		AllFailedPolicy: allFailedPolicy(s.policy),
		Failover:        tiers,
		Drained:         drainedClusters(s.overrides),
	})
	s.result = trafficmap.Explain(drain.Apply(result, s.overrides), allFailedPolicy(s.policy))
	s.result.Entries = trafficmap.WithPortWarnings(s.result.Entries, s.policy.Mode == probe.ModePolicy, r.BackendPort)
	return phase.Proceed
}

// writeSpec records the placement on the service and writes the map's spec.
func (r *Reconciler) writeSpec(ctx context.Context, s *routingScope) phase.Outcome {
	err := r.writePlacement(ctx, s.isvc, s.in.placement)
	if err == nil {
		s.written, err = r.writeMap(ctx, s.isvc, s.current, s.result, allFailedPolicy(s.policy))
	}
	if err != nil {
		return phase.Finish(r.retryConflict(s.key, err))
	}
	return phase.Proceed
}

// announceChanges tells what the written spec changed, in events, and sets the map's
// gauges. It runs once the spec is written, so that a transition is told exactly once
// even when the status write after it fails and the reconcile runs again.
func (r *Reconciler) announceChanges(_ context.Context, s *routingScope) phase.Outcome {
	r.announceAll(s.isvc, s.current, s.result, allFailedPolicy(s.policy), s.in.excluded)
	r.setMapGauges(s.key, s.result.Entries, shadow(s.policy), s.polls.Enabled(), passivePolicy(s.policy) != nil)
	return phase.Proceed
}

// writeStatus applies the routing reconciler's share of the map's status.
func (r *Reconciler) writeStatus(ctx context.Context, s *routingScope) phase.Outcome {
	override := drain.OverrideActive(s.overrides, s.result.Entries)
	s.result.Routable = trafficmap.CountServing(s.result.Routable, s.result.Entries)
	if err := r.writeMapStatus(ctx, s.isvc, s.written, s.result, s.polls.Enabled(), override, s.in.excluded, r.viewOf(s), s.trafficApplied); err != nil {
		return phase.Finish(r.retryConflict(s.key, err))
	}
	return phase.Proceed
}

// requeue says when to look at the service again without an event: when a capacity
// reading expires, an unobserved home's grace ends or a passive gate's ejection time is
// over (each changes the map with nothing else to trigger a reconcile), or
// soon while members are not connected yet.
func (r *Reconciler) requeue(s *routingScope) (ctrl.Result, error) {
	if !s.nextExpiry.IsZero() {
		return ctrl.Result{RequeueAfter: max(time.Until(s.nextExpiry), 0) + time.Millisecond}, nil
	}
	if len(s.in.pending) > 0 {
		return ctrl.Result{RequeueAfter: memberPendingRetry}, nil
	}
	return ctrl.Result{}, nil
}

// stopObserving stops the service's probes and capacity polls. The prober and the poller
// delete only their own counters: the map's gauges are the reconciler's (forgetMapGauges).
func (r *Reconciler) stopObserving(key types.NamespacedName) {
	r.Prober.Forget(key)
	r.Poller.Forget(key)
	r.Signal.Forget(key)
	r.Load.Forget(key)
}

// forgetService drops everything the reconciler keeps about a service that is gone or no
// longer routed: its probes and polls, every per-map gauge, its own writes and its map
// binding. It is the gauges' one forget path; stopObserving alone (a refused setting)
// leaves them, as the frozen map keeps its gates.
func (r *Reconciler) forgetService(key types.NamespacedName) {
	r.stopObserving(key)
	forgetMapGauges(key)
	r.written.forget(key)
	r.applied.forget(key)
	r.forgetServing(key)
	r.forgetMap(key)
}

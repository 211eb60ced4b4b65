package routing

import (
	"context"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/controllers/internal/related"
	"github.com/ome-routing/operator/pkg/drain"
	"github.com/ome-routing/operator/pkg/trafficmap"
)

// This file owns every event one reconcile of a service sends: announceAll runs once the
// map's spec is written, and calls one function per kind of transition below, each
// comparing the new entries with the map as it was. The one event sent earlier is
// EndpointRefused, from the gather phase (announceRefusedEndpoints), because a refused
// endpoint never gets an entry to compare. Event reasons are in events.go.

// announceAll emits the events for what the new entries change against the map as it
// was: gates and lifts, drains, refusals, homes leaving or joining, capacity caps.
func (r *Reconciler) announceAll(isvc *omev1beta1.InferenceService, current *omev1beta1.TrafficMap,
	result trafficmap.Result, policy omev1beta1.AllFailedPolicy, excluded []omev1beta1.ExcludedCluster) {
	r.announce(isvc, current, result, policy)
	r.announceDrains(isvc, current, result.Entries)
	r.announceRefusals(isvc, current, result.Entries)
	r.announceMembership(isvc, current, result.Entries, excluded)
	r.announceCapacityCaps(isvc, current, result.Entries)
	r.announceUnobserved(isvc, current, result.Entries, r.ObservationGrace)
	r.announcePortWarnings(isvc, current, result.Entries)
	r.announceFailover(isvc, current, result.Failover)
	r.announcePassiveGates(isvc, current, result.Entries)
	r.announceLoadShifts(isvc, current, result.Entries)
}

// announceLoadShifts emits an event when load balancing moves a home's share, in either
// mode: at most one a minInterval for each home.
func (r *Reconciler) announceLoadShifts(isvc *omev1beta1.InferenceService, current *omev1beta1.TrafficMap, entries []omev1beta1.TrafficMapEntry) {
	was := map[string]int32{}
	if current != nil {
		for _, e := range current.Spec.Entries {
			if e.Load != nil {
				was[e.Cluster] = e.Load.SharePercent
			}
		}
	}
	for _, e := range entries {
		before, ok := was[e.Cluster]
		if e.Load == nil || (!ok && e.Load.SharePercent == 100) || before == e.Load.SharePercent {
			continue
		}
		shadow := ""
		if e.Load.Mode == omev1beta1.LoadBalancingShadow {
			shadow = " (Shadow mode: its weight is unchanged)"
		}
		r.Recorder.Eventf(isvc, related.WorkloadCluster(e.Cluster), corev1.EventTypeNormal, EventLoadShifted, actionRoute,
			"Cluster %s: %s%s", e.Cluster, e.Load.Message, shadow)
	}
}

// announcePassiveGates emits an event when a passive gate closes or lifts, when a Shadow
// one would close, and when the cap starts leaving a failing home in traffic.
func (r *Reconciler) announcePassiveGates(isvc *omev1beta1.InferenceService, current *omev1beta1.TrafficMap, entries []omev1beta1.TrafficMapEntry) {
	was := map[string]omev1beta1.TrafficMapPassiveGate{}
	if current != nil {
		for _, e := range current.Spec.Entries {
			if e.PassiveGate != nil {
				was[e.Cluster] = *e.PassiveGate
			}
		}
	}
	for _, e := range entries {
		var now omev1beta1.TrafficMapPassiveGate
		if e.PassiveGate != nil {
			now = *e.PassiveGate
		}
		before, cluster := was[e.Cluster], related.WorkloadCluster(e.Cluster)
		switch {
		case now.Gated && !before.Gated:
			r.Recorder.Eventf(isvc, cluster, corev1.EventTypeWarning, EventPassiveGated, actionRoute, "Cluster %s held out: %s", e.Cluster, now.Message)
		case before.Gated && !now.Gated && e.PassiveGate == nil:
			r.Recorder.Eventf(isvc, cluster, corev1.EventTypeNormal, EventPassiveGateLifted, actionRoute,
				"Cluster %s passive gate lifted: the service's probe sets no passiveGate any more", e.Cluster)
		case before.Gated && !now.Gated && !now.WouldGate:
			r.Recorder.Eventf(isvc, cluster, corev1.EventTypeNormal, EventPassiveGateLifted, actionRoute, "Cluster %s: %s", e.Cluster, now.Message)
		case now.WouldGate && !before.WouldGate && !before.Gated:
			r.Recorder.Eventf(isvc, cluster, corev1.EventTypeNormal, EventPassiveWouldGate, actionRoute,
				"Cluster %s would be held out: %s (Shadow mode: its weight is unchanged)", e.Cluster, now.Message)
		}
		if now.Capped && !before.Capped {
			r.Recorder.Eventf(isvc, cluster, corev1.EventTypeWarning, EventPassiveGateCapped, actionRoute, "Cluster %s: %s", e.Cluster, now.Message)
		}
	}
}

// announce emits events for the gate transitions between the current map and the new
// entries, real and (under a Shadow probe) would-be, and when every home has just failed.
func (r *Reconciler) announce(isvc *omev1beta1.InferenceService, current *omev1beta1.TrafficMap,
	result trafficmap.Result, policy omev1beta1.AllFailedPolicy) {
	was := map[string]gateState{}
	before := map[string]omev1beta1.TrafficMapEntry{}
	wasAllFailed := false
	if current != nil {
		for _, e := range current.Spec.Entries {
			was[e.Cluster] = gateStateOf(e.Probe)
			before[e.Cluster] = e
		}
		c := meta.FindStatusCondition(current.Status.Conditions, omev1beta1.TrafficMapRoutable)
		wasAllFailed = c != nil && c.Reason == string(omev1beta1.TrafficMapReasonAllHomesProbeFailed)
	}
	for _, e := range result.Entries {
		r.announceGate(isvc, before[e.Cluster], e, was[e.Cluster], gateStateOf(e.Probe), policy != "")
	}
	if result.Routable.Reason == omev1beta1.TrafficMapReasonAllHomesProbeFailed && !wasAllFailed {
		r.Recorder.Eventf(isvc, nil, corev1.EventTypeWarning, EventAllHomesProbeFailed, actionRoute, "allFailedPolicy %s applied: %s",
			policy, result.Routable.Message)
	}
}

// gateState is what an entry's probe record says of its gate: set (gated) or, under a
// Shadow probe, only recorded (would).
type gateState struct{ gated, would bool }

func gateStateOf(p *omev1beta1.TrafficMapProbe) gateState {
	if p == nil {
		return gateState{}
	}
	return gateState{gated: p.Gated, would: p.WouldGate}
}

// announceGate emits the event for one entry's gate transition, if it had one. before is
// the entry as the map held it, for the cause of a lift (trafficmap.LiftCause); probing
// says whether a probe applies to the service now.
func (r *Reconciler) announceGate(isvc *omev1beta1.InferenceService, before, e omev1beta1.TrafficMapEntry, was, now gateState, probing bool) {
	related := related.WorkloadCluster(e.Cluster)
	switch {
	case now.gated && !was.gated:
		r.Recorder.Eventf(isvc, related, corev1.EventTypeWarning, EventHomeGated, actionProbe, "Cluster %s gated after %d probe failures in a row: %s",
			e.Cluster, e.Probe.ConsecutiveFailures, e.Probe.Message)
	case was.gated && now.would:
		r.Recorder.Eventf(isvc, related, corev1.EventTypeNormal, EventHomeUngated, actionProbe,
			"Cluster %s gate lifted: the probe is in Shadow mode, which records its gates without moving traffic", e.Cluster)
	case !now.gated && was.gated:
		r.Recorder.Eventf(isvc, related, corev1.EventTypeNormal, EventHomeUngated, actionProbe, "Cluster %s gate lifted: %s",
			e.Cluster, trafficmap.LiftCause(before, e, probing))
	case now.would && !was.would:
		r.Recorder.Eventf(isvc, related, corev1.EventTypeNormal, EventHomeWouldGate, actionProbe,
			"Cluster %s would be gated after %d probe failures in a row: %s (Shadow mode: its weight is unchanged)",
			e.Cluster, e.Probe.ConsecutiveFailures, e.Probe.Message)
	case was.would && !now.would && !now.gated:
		r.Recorder.Eventf(isvc, related, corev1.EventTypeNormal, EventHomeWouldUngate, actionProbe,
			"Cluster %s would have its gate lifted: %s (Shadow mode)", e.Cluster, trafficmap.LiftCause(before, e, probing))
	}
}

// announceRefused tells the service's owner its routing settings are refused (see
// refuse): the map stays frozen until they are fixed.
func (r *Reconciler) announceRefused(isvc *omev1beta1.InferenceService, err error) {
	r.Recorder.Eventf(isvc, nil, corev1.EventTypeWarning, EventRoutingPolicyRefused, actionResolvePolicy, "%s", err.Error())
}

// announceRefusedEndpoints tells the service's owner which homes are left out because of
// their copy's status.url, without quoting it: it may hold a credential.
func (r *Reconciler) announceRefusedEndpoints(ctx context.Context, isvc *omev1beta1.InferenceService, refused []refusedEndpoint) {
	for _, re := range refused {
		ctrl.LoggerFrom(ctx).Info("Leaving a home out: its status.url is refused", "InferenceService", klog.KObj(isvc),
			"cluster", re.cluster, "reason", re.reason.Error())
		r.Recorder.Eventf(isvc, related.WorkloadCluster(re.cluster), corev1.EventTypeWarning, EventEndpointRefused, actionRoute,
			"Cluster %s left out: the status.url of its copy is refused because %v; it is neither probed nor routed to", re.cluster, re.reason)
	}
}

// announceDrains emits an event when a drain starts or stops holding a home, related to
// the home's WorkloadCluster.
func (r *Reconciler) announceDrains(isvc *omev1beta1.InferenceService, current *omev1beta1.TrafficMap, entries []omev1beta1.TrafficMapEntry) {
	was := map[string]bool{}
	if current != nil {
		for _, e := range current.Spec.Entries {
			was[e.Cluster] = len(e.DrainRefs) > 0
		}
	}
	for _, e := range entries {
		drained := len(e.DrainRefs) > 0
		cluster := related.WorkloadCluster(e.Cluster)
		switch {
		case drained && !was[e.Cluster]:
			r.Recorder.Eventf(isvc, cluster, corev1.EventTypeNormal, EventHomeDrained, actionRoute,
				"Cluster %s held at weight 0 by %s override(s) %s", e.Cluster, drain.Annotation, strings.Join(e.DrainRefs, ","))
		case !drained && was[e.Cluster]:
			r.Recorder.Eventf(isvc, cluster, corev1.EventTypeNormal, EventHomeUndrained, actionRoute,
				"Cluster %s released: no %s override names it any more", e.Cluster, drain.Annotation)
		}
	}
}

// announceRefusals emits an event for every home the operator starts refusing, or now
// refuses for another reason, and for every refusal lifted. A refusal is loud on purpose:
// a guard setting left off (allowPrivateNetworks, by default) silently takes a cluster
// with a private ingress out of traffic, and the note says which setting to change.
func (r *Reconciler) announceRefusals(isvc *omev1beta1.InferenceService, current *omev1beta1.TrafficMap, entries []omev1beta1.TrafficMapEntry) {
	was := map[string]string{}
	if current != nil {
		for _, e := range current.Spec.Entries {
			was[e.Cluster] = e.Refused
		}
	}
	for _, e := range entries {
		before := was[e.Cluster]
		switch {
		case e.Refused != "" && e.Refused != before:
			r.Recorder.Eventf(isvc, related.WorkloadCluster(e.Cluster), corev1.EventTypeWarning, EventHomeRefused, actionRoute,
				"Cluster %s takes no traffic: the operator refuses it: %s", e.Cluster, e.Refused)
		case e.Refused == "" && before != "":
			r.Recorder.Eventf(isvc, related.WorkloadCluster(e.Cluster), corev1.EventTypeNormal, EventHomeRefusalLifted, actionRoute,
				"Cluster %s is no longer refused", e.Cluster)
		}
	}
}

// announceMembership emits an event for every cluster that leaves the map or joins a map
// that already exists. A cluster that leaves takes its backend out of the route, so the
// Warning says why (its exclusion's reason and message) or, for a cluster that is no
// longer selected at all, that it is not a candidate any more.
func (r *Reconciler) announceMembership(isvc *omev1beta1.InferenceService, current *omev1beta1.TrafficMap,
	entries []omev1beta1.TrafficMapEntry, excluded []omev1beta1.ExcludedCluster) {
	if current == nil {
		return
	}
	now := map[string]bool{}
	for _, e := range entries {
		now[e.Cluster] = true
	}
	why := map[string]omev1beta1.ExcludedCluster{}
	for _, x := range excluded {
		why[x.Cluster] = x
	}
	was := map[string]bool{}
	for _, e := range current.Spec.Entries {
		was[e.Cluster] = true
		if now[e.Cluster] {
			continue
		}
		if x, ok := why[e.Cluster]; ok {
			r.Recorder.Eventf(isvc, related.WorkloadCluster(e.Cluster), corev1.EventTypeWarning, EventHomeLeft, actionRoute,
				"Cluster %s left the map and takes no traffic: %s: %s", e.Cluster, x.Reason, x.Message)
			continue
		}
		r.Recorder.Eventf(isvc, related.WorkloadCluster(e.Cluster), corev1.EventTypeWarning, EventHomeLeft, actionRoute,
			"Cluster %s left the map and takes no traffic: the placement no longer selects it, or its WorkloadCluster is gone", e.Cluster)
	}
	for _, e := range entries {
		if !was[e.Cluster] {
			r.Recorder.Eventf(isvc, related.WorkloadCluster(e.Cluster), corev1.EventTypeNormal, EventHomeJoined, actionRoute,
				"Cluster %s joined the map with weight %d: %s", e.Cluster, e.Weight, e.WeightReason)
		}
	}
}

// announceCapacityCaps emits an event when a capacity report starts or stops holding a
// cluster at 0 replicas. Every other change of a ceiling only moves a ratio, and shows in
// the entry's capacity block and weightReason.
func (r *Reconciler) announceCapacityCaps(isvc *omev1beta1.InferenceService, current *omev1beta1.TrafficMap, entries []omev1beta1.TrafficMapEntry) {
	was := map[string]bool{}
	if current != nil {
		for _, e := range current.Spec.Entries {
			was[e.Cluster] = cappedToZero(e)
		}
	}
	for _, e := range entries {
		switch {
		case cappedToZero(e) && !was[e.Cluster]:
			r.Recorder.Eventf(isvc, related.WorkloadCluster(e.Cluster), corev1.EventTypeWarning, EventHomeCapacityCapped, actionRoute,
				"Cluster %s capped at 0 replicas by its capacity report: it takes no traffic until a report above 0", e.Cluster)
		case !cappedToZero(e) && was[e.Cluster]:
			r.Recorder.Eventf(isvc, related.WorkloadCluster(e.Cluster), corev1.EventTypeNormal, EventHomeCapacityRestored, actionRoute,
				"Cluster %s is no longer capped at 0 by its capacity report: %d allocated replica(s) count", e.Cluster, e.Capacity.Allocated)
		}
	}
}

// cappedToZero says whether a capacity report holds the entry at 0 replicas.
func cappedToZero(e omev1beta1.TrafficMapEntry) bool {
	return e.Capacity.Source == omev1beta1.CapacitySourceEndpoint && e.Capacity.Allocated == 0
}

// announcePortWarnings sends a ProbePortMismatch event for every entry whose port warning
// (see trafficmap.PortWarning) is new or changed against the map as it was.
func (r *Reconciler) announcePortWarnings(isvc *omev1beta1.InferenceService, current *omev1beta1.TrafficMap, entries []omev1beta1.TrafficMapEntry) {
	was := map[string]string{}
	if current != nil {
		for _, e := range current.Spec.Entries {
			was[e.Cluster] = e.Warning
		}
	}
	for _, e := range entries {
		if e.Warning != "" && e.Warning != was[e.Cluster] {
			r.Recorder.Eventf(isvc, related.WorkloadCluster(e.Cluster), corev1.EventTypeWarning, EventProbePortMismatch, actionRoute,
				"Cluster %s: %s", e.Cluster, e.Warning)
		}
	}
}

// announceUnobserved tells when a home becomes unobserved, and when it is observed again.
// A home that leaves the map past its grace is told by announceMembership, with why.
func (r *Reconciler) announceUnobserved(isvc *omev1beta1.InferenceService, current *omev1beta1.TrafficMap,
	entries []omev1beta1.TrafficMapEntry, grace time.Duration) {
	was := map[string]bool{}
	if current != nil {
		for _, e := range current.Spec.Entries {
			was[e.Cluster] = e.UnobservedSince != nil
		}
	}
	for _, e := range entries {
		switch unobserved := e.UnobservedSince != nil; {
		case unobserved && !was[e.Cluster]:
			r.Recorder.Eventf(isvc, related.WorkloadCluster(e.Cluster), corev1.EventTypeWarning, EventHomeUnobserved, actionRoute,
				"Cluster %s is %s; it keeps its entry for up to placement.observationGrace (%s), longer while no observed home takes traffic: weight %d",
				e.Cluster, trafficmap.UnobservedWording(e.UnobservedSince.Time), grace, e.Weight)
		case !unobserved && was[e.Cluster]:
			r.Recorder.Eventf(isvc, related.WorkloadCluster(e.Cluster), corev1.EventTypeNormal, EventHomeObserved, actionRoute,
				"Cluster %s is observed again: its entry follows its copy, weight %d", e.Cluster, e.Weight)
		}
	}
}

// announceFailover emits an event when a tier after the first starts to take traffic
// (the tiers before it lost healthy capacity) and when it stops (they have it back). A
// change of a spilled share between two positive values sends none: the map records it.
func (r *Reconciler) announceFailover(isvc *omev1beta1.InferenceService, current *omev1beta1.TrafficMap, split *omev1beta1.TrafficMapFailover) {
	was := map[string]int32{}
	if current != nil && current.Spec.Failover != nil {
		for _, t := range current.Spec.Failover.Tiers {
			was[t.Name] = t.LoadPercent
		}
	}
	if split == nil {
		return
	}
	for i, t := range split.Tiers {
		if i == 0 {
			continue
		}
		switch {
		case t.LoadPercent > 0 && was[t.Name] == 0:
			r.Recorder.Eventf(isvc, nil, corev1.EventTypeNormal, EventTrafficSpilled, actionRoute,
				"Traffic spills to tier %s, which now takes %d%%: %s", t.Name, t.LoadPercent, trafficmap.TierHealthList(split.Tiers[:i]))
		case t.LoadPercent == 0 && was[t.Name] > 0:
			r.Recorder.Eventf(isvc, nil, corev1.EventTypeNormal, EventTrafficReturned, actionRoute,
				"Tier %s takes no traffic again: the tiers before it take all of it (%s)", t.Name, trafficmap.TierHealthList(split.Tiers[:i]))
		}
	}
}

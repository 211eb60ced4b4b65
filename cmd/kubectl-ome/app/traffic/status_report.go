package traffic

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/cmd/kubectl-ome/app/placement"
	"github.com/ome-routing/operator/pkg/drain"
)

// Evidence marks where a value of `traffic status` comes from. Observed is evidence from
// the global gateway's own counters, which the manager reads through its traffic signal
// (routing.trafficSignal): the map's TrafficApplied verdict and a home's passive-gate
// reading. Without a verdict or a reading, the report says NotObserved and why.
const (
	EvidenceReported = "Reported"
	EvidenceComputed = "Computed"
	EvidenceObserved = "Observed"
	NotObserved      = "NotObserved"
	// notObservedReason says why no value is Observed when the map carries no
	// TrafficApplied condition (a manager that predates it, or no map).
	notObservedReason = "no gateway traffic counters are read; weights are intent, not measured traffic"
)

// StatusReport is `traffic status`: per route home its weight and drains, each marked by
// its evidence.
type StatusReport struct {
	metav1.TypeMeta `json:",inline"`
	CollectedAt     metav1.Time               `json:"collectedAt"`
	Target          placement.ReportTarget    `json:"target"`
	TrafficMap      placement.TrafficMapState `json:"trafficMap"`
	// Drains are the overrides of the ome.io/traffic-drain annotation as stored now
	// (Computed: parsed by the CLI); DrainError says why they do not parse.
	Drains     []DrainView       `json:"drains"`
	DrainError string            `json:"drainError,omitempty"`
	RouteHomes []StatusRouteHome `json:"routeHomes"`
	// TierSplit is Reported: the map's one-line tier split, such as "east 70%, west 30%";
	// empty without failover.
	TierSplit string `json:"tierSplit,omitempty"`
	// Serving is Reported: the manager's summary of the homes' serving states, or Stale
	// when the map does not show the service as it is now (Computed by the CLI from its
	// age); absent without a map.
	Serving *placement.ServingSummary `json:"serving,omitempty"`
	// ExcludedClusters are Reported: the clusters the placement selects that have no
	// route home, each with why (a member the control plane cannot read among them).
	ExcludedClusters []placement.ExcludedView `json:"excludedClusters"`
	Observed         ObservedView             `json:"observed"`
	Warnings         []string                 `json:"warnings"`
}

// DrainView is one override of the annotation and whether a route home carries it.
type DrainView struct {
	ID      string `json:"id"`
	Cluster string `json:"cluster"`
	Reason  string `json:"reason"`
	// Held is Computed: true when a route home of the map names the drain's cluster.
	Held bool `json:"held"`
}

// StatusRouteHome is one entry of the map.
type StatusRouteHome struct {
	Cluster string `json:"cluster"`
	// Weight, WeightReason and DrainRefs are Reported: the map's spec as the manager
	// wrote it.
	Weight       int32    `json:"weight"`
	WeightReason string   `json:"weightReason,omitempty"`
	DrainRefs    []string `json:"drainRefs"`
	// Serving is Reported: the home's serving state as the manager judged it, or Stale.
	Serving placement.ServingView `json:"serving"`
	// SharePercent is Computed: the weight's share of the weights the route carries, in
	// whole percent; 0 for a home the route leaves out, whatever its weight.
	SharePercent int64 `json:"sharePercent"`
	// AnnotationDrains is Computed: the IDs of the annotation's drains naming this cluster.
	AnnotationDrains []string `json:"annotationDrains"`
	// Tier is Reported: the failover tier the cluster is in; empty without failover.
	Tier string `json:"tier,omitempty"`
	// Traffic is Observed: the requests the gateway sent the cluster over the traffic
	// signal's window, as the passive gate last read them; absent when the service's probe
	// sets no passive gate.
	Traffic *ObservedTraffic `json:"traffic,omitempty"`
}

// ObservedTraffic is a home's last reading of the gateway's counters.
type ObservedTraffic struct {
	// Signal is Known when the reading could be used; Unknown otherwise, and Reason says
	// why.
	Signal   string `json:"signal"`
	Requests *int64 `json:"requests,omitempty"`
	Failures *int64 `json:"failures,omitempty"`
	Reason   string `json:"reason,omitempty"`
}

// ObservedView is the gateway's own counters' verdict on the route (State Observed, the
// map's TrafficApplied True or False), or NotObserved and why.
type ObservedView struct {
	State  string `json:"state"`
	Reason string `json:"reason"`
}

// DeepCopyObject makes the report a runtime.Object for cli-runtime's printers; it is
// built once and only printed.
func (r *StatusReport) DeepCopyObject() runtime.Object {
	c := *r
	return &c
}

// buildStatus builds the report from the endpoint report, the service's annotation and the
// map (nil when it could not be read, or is not the service's).
func buildStatus(isvc *omev1beta1.InferenceService, tm *omev1beta1.TrafficMap, endpoint *placement.EndpointReport) *StatusReport {
	if endpoint.Content.TrafficMap.State != placement.Observed {
		tm = nil
	}
	r := &StatusReport{CollectedAt: endpoint.CollectedAt, Target: endpoint.Target, TrafficMap: endpoint.Content.TrafficMap,
		Drains: []DrainView{}, RouteHomes: []StatusRouteHome{}, Warnings: []string{},
		Observed: observedView(tm), Serving: endpoint.Content.Serving, ExcludedClusters: endpoint.Content.ExcludedClusters}
	traffic := observedTraffic(tm)
	r.SetGroupVersionKind(endpoint.GroupVersionKind().GroupVersion().WithKind("TrafficStatusReport"))
	value, present := isvc.Annotations[drain.Annotation]
	overrides, err := drain.Parse(value, present)
	if err != nil {
		r.DrainError = err.Error()
	}
	if f := endpoint.Content.Failover; f != nil {
		r.TierSplit = f.Summary
	}
	// The share is of what the route carries: a home the route leaves out gets none of
	// the traffic, whatever its weight in the map (its serving state says so).
	carried := func(h placement.RouteHome) int64 {
		if h.Serving.State == string(omev1beta1.ServingStateLeftOutOfRoute) || h.Serving.Recorded == string(omev1beta1.ServingStateLeftOutOfRoute) {
			return 0
		}
		return int64(h.Weight)
	}
	var total int64
	for _, h := range endpoint.Content.RouteHomes {
		total += carried(h)
	}
	clusters := map[string]bool{}
	for _, h := range endpoint.Content.RouteHomes {
		clusters[h.Cluster] = true
		home := StatusRouteHome{Cluster: h.Cluster, Weight: h.Weight, WeightReason: h.WeightReason, DrainRefs: h.DrainRefs,
			AnnotationDrains: []string{}, Tier: h.Tier, Traffic: traffic[h.Cluster], Serving: h.Serving}
		if total > 0 {
			home.SharePercent = carried(h) * 100 / total
		}
		for _, o := range overrides {
			if o.Cluster == h.Cluster {
				home.AnnotationDrains = append(home.AnnotationDrains, o.ID)
			}
		}
		r.RouteHomes = append(r.RouteHomes, home)
	}
	for _, o := range overrides {
		r.Drains = append(r.Drains, DrainView{ID: o.ID, Cluster: o.Cluster, Reason: o.Reason, Held: clusters[o.Cluster]})
	}
	return r
}

// observedView is the map's TrafficApplied verdict: Observed when the gateway's counters
// settled it (True or False), NotObserved with the condition's reason while they have not,
// and the general reason without the condition.
func observedView(tm *omev1beta1.TrafficMap) ObservedView {
	var c *metav1.Condition
	if tm != nil {
		c = meta.FindStatusCondition(tm.Status.Conditions, omev1beta1.TrafficMapTrafficApplied)
	}
	switch {
	case c == nil:
		return ObservedView{State: NotObserved, Reason: notObservedReason}
	case c.Status == metav1.ConditionTrue || c.Status == metav1.ConditionFalse:
		return ObservedView{State: EvidenceObserved, Reason: fmt.Sprintf("TrafficApplied %s %s: %s", c.Status, c.Reason, c.Message)}
	}
	return ObservedView{State: NotObserved, Reason: fmt.Sprintf("TrafficApplied %s %s: %s", c.Status, c.Reason, c.Message)}
}

// observedTraffic are the entries' passive-gate readings, by cluster.
func observedTraffic(tm *omev1beta1.TrafficMap) map[string]*ObservedTraffic {
	out := map[string]*ObservedTraffic{}
	if tm == nil {
		return out
	}
	for _, e := range tm.Spec.Entries {
		pg := e.PassiveGate
		if pg == nil {
			continue
		}
		t := &ObservedTraffic{Signal: string(pg.Signal), Requests: pg.Requests, Failures: pg.Failures}
		if pg.Signal != omev1beta1.TrafficSignalKnown {
			t.Reason = pg.Message
		}
		out[e.Cluster] = t
	}
	return out
}

package placement

import (
	"net/url"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/duration"
	"k8s.io/apimachinery/pkg/util/validation"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

// Values the report uses when something is missing or not what it should be.
const (
	NotRecorded     = "NotRecorded"
	InvalidEndpoint = "InvalidEndpoint"
	Current         = "Current"
	Stale           = "Stale"
	Unverifiable    = "Unverifiable"
	Unavailable     = "Unavailable"
	Observed        = "Observed"
)

// conditionTypes are the TrafficMap conditions the report shows, in table order.
// One that nothing has written yet (Published while the publisher does not run) shows as
// not recorded.
var conditionTypes = []string{
	omev1beta1.TrafficMapOverrideActive,
	omev1beta1.TrafficMapCapacityFallback,
	omev1beta1.TrafficMapRoutable,
	omev1beta1.TrafficMapPublished,
	omev1beta1.TrafficMapSettingsAccepted,
}

// EndpointReport is `placement endpoint`'s view of one service's routing, uncut; the table
// is a bounded rendering of it.
type EndpointReport struct {
	metav1.TypeMeta `json:",inline"`
	CollectedAt     metav1.Time     `json:"collectedAt"`
	Target          ReportTarget    `json:"target"`
	Content         EndpointContent `json:"content"`
	// Warnings is always empty: problems are in content.issues.
	Warnings []string `json:"warnings"`
}

// ReportTarget is the service the report is about.
type ReportTarget struct {
	Kind       string `json:"kind"`
	Namespace  string `json:"namespace"`
	Name       string `json:"name"`
	UID        string `json:"uid"`
	Generation int64  `json:"generation"`
}

// EndpointContent is what the TrafficMap says.
type EndpointContent struct {
	TrafficMap TrafficMapState `json:"trafficMap"`
	// RoutingFreshness is Current when the map shows the service as it is now (its
	// generation and its drain annotation, with probes recorded lately), Stale when the
	// manager has not observed a change yet, has recorded no probe for several periods,
	// or keeps the map frozen, Unavailable without a map.
	RoutingFreshness string `json:"routingFreshness"`
	// RoutingStaleCause says why, when Stale: StaleGeneration, NoRecentProbe or Frozen.
	RoutingStaleCause string `json:"routingStaleCause,omitempty"`
	// RoutingStaleReason says it in a sentence, when Stale.
	RoutingStaleReason string          `json:"routingStaleReason,omitempty"`
	Conditions         []ConditionView `json:"conditions"`
	RouteHomes         []RouteHome     `json:"routeHomes"`
	// ExcludedClusters are the clusters the placement selects that have no route home,
	// each with why (the map's status.excludedClusters).
	ExcludedClusters []ExcludedView `json:"excludedClusters"`
	// Failover is the map's tier split, absent when the service has no failover.
	Failover *FailoverView `json:"failover,omitempty"`
	// Serving sums up the route homes' serving states; absent without a map.
	Serving *ServingSummary `json:"serving,omitempty"`
	Issues  []string        `json:"issues"`
}

// TrafficMapState says whether the map could be read, and why not.
type TrafficMapState struct {
	State                  string `json:"state"`
	Reason                 string `json:"reason,omitempty"`
	Generation             int64  `json:"generation,omitempty"`
	ObservedISVCGeneration int64  `json:"observedISVCGeneration,omitempty"`
}

// ConditionView is one map condition and whether it describes the current service.
type ConditionView struct {
	Type               string       `json:"type"`
	Status             string       `json:"status"`
	Reason             string       `json:"reason"`
	Message            string       `json:"message,omitempty"`
	ObservedGeneration int64        `json:"observedGeneration,omitempty"`
	LastTransitionTime *metav1.Time `json:"lastTransitionTime,omitempty"`
	Freshness          string       `json:"freshness"`
}

// RouteHome is one TrafficMap entry. Its endpoint is reduced to its origin: a path or
// query can carry tokens, and credentials in the URL are never shown.
type RouteHome struct {
	Cluster        string       `json:"cluster"`
	EndpointOrigin string       `json:"endpointOrigin"`
	PathPresent    bool         `json:"pathPresent"`
	Weight         int32        `json:"weight"`
	Healthy        bool         `json:"healthy"`
	DrainRefs      []string     `json:"drainRefs"`
	Probe          *ProbeView   `json:"probe,omitempty"`
	Capacity       CapacityView `json:"capacity"`
	// WeightReason and WeightMessage say why the weight is what it is, as the manager
	// recorded it; empty from a manager that records none.
	WeightReason  string `json:"weightReason,omitempty"`
	WeightMessage string `json:"weightMessage,omitempty"`
	// Warning is the entry's warning (a probe port that is not the route's), which moves
	// no weight; empty without one.
	Warning string `json:"warning,omitempty"`
	// Tier is the failover tier the cluster is in (unlisted for one no tier names); empty
	// without failover.
	Tier string `json:"tier,omitempty"`
	// Serving is the home's serving state as the manager judged it, or Stale.
	Serving ServingView `json:"serving"`
}

// ProbeView is the probe record the operator keeps for a home.
type ProbeView struct {
	Result              string       `json:"result"`
	Message             string       `json:"message,omitempty"`
	Gated               bool         `json:"gated"`
	ConsecutiveFailures int32        `json:"consecutiveFailures"`
	LastProbeTime       *metav1.Time `json:"lastProbeTime,omitempty"`
	// LastProbeAge is how long before collectedAt the last probe finished.
	LastProbeAge string `json:"lastProbeAge"`
	PolicyDigest string `json:"policyDigest"`
	// WouldGate, DampingFactor, RampPercent and LastLiftTime come from the probe's
	// optional settings (mode: Shadow, flapDamping, rampUp) and are absent without them.
	WouldGate     bool         `json:"wouldGate,omitempty"`
	DampingFactor int32        `json:"dampingFactor,omitempty"`
	RampPercent   int32        `json:"rampPercent,omitempty"`
	LastLiftTime  *metav1.Time `json:"lastLiftTime,omitempty"`
}

// CapacityView is what the weight was computed from.
type CapacityView struct {
	Source    string `json:"source"`
	Allocated int32  `json:"allocated"`
	Ready     int32  `json:"ready"`
	Factor    string `json:"factor,omitempty"`
	// Reported is the ceiling the home's capacity reports gave, when they gave one.
	Reported *int32 `json:"reported,omitempty"`
	// FallbackReason says why a configured capacity poll gives no ceiling.
	FallbackReason string `json:"fallbackReason,omitempty"`
}

// DeepCopyObject makes the report a runtime.Object for cli-runtime's printers. The report
// is built once and only printed, so copying its top-level slices is enough.
func (r *EndpointReport) DeepCopyObject() runtime.Object {
	c := *r
	c.Content.Conditions = append([]ConditionView(nil), r.Content.Conditions...)
	c.Content.RouteHomes = append([]RouteHome(nil), r.Content.RouteHomes...)
	c.Content.ExcludedClusters = append([]ExcludedView(nil), r.Content.ExcludedClusters...)
	if f := r.Content.Failover; f != nil {
		fc := *f
		fc.Tiers = append([]TierView(nil), f.Tiers...)
		c.Content.Failover = &fc
	}
	return &c
}

// buildReport turns what was read into the report. tm is nil when the map could not be
// read, with tmErr saying why.
func buildReport(isvc *omev1beta1.InferenceService, tm *omev1beta1.TrafficMap, tmErr error, now time.Time) *EndpointReport {
	r := &EndpointReport{
		CollectedAt: metav1.NewTime(now.UTC()),
		Target: ReportTarget{Kind: "InferenceService", Namespace: isvc.Namespace, Name: isvc.Name,
			UID: string(isvc.UID), Generation: isvc.Generation},
		Warnings: []string{},
		Content:  EndpointContent{Issues: []string{}, RouteHomes: []RouteHome{}, ExcludedClusters: []ExcludedView{}},
	}
	r.SetGroupVersionKind(reportGroupVersion.WithKind("PlacementEndpointReport"))
	c := &r.Content
	switch {
	case tm == nil:
		c.TrafficMap = TrafficMapState{State: Unavailable, Reason: readReason(tmErr)}
	case !controlledBy(tm, isvc):
		c.TrafficMap = TrafficMapState{State: Unavailable, Reason: "OwnershipUnbound"}
		tm = nil
	default:
		c.TrafficMap = TrafficMapState{State: Observed, Generation: tm.Generation, ObservedISVCGeneration: tm.Spec.ObservedISVCGeneration}
	}
	if tm == nil {
		c.RoutingFreshness = Unavailable
		for _, t := range conditionTypes {
			c.Conditions = append(c.Conditions, ConditionView{Type: t, Status: string(metav1.ConditionUnknown), Reason: NotRecorded, Freshness: Unverifiable})
		}
		return r
	}
	c.ExcludedClusters = excludedViews(tm.Status.ExcludedClusters)
	c.Failover = failoverView(tm.Spec.Failover)
	c.RoutingStaleCause, c.RoutingStaleReason = staleRouting(isvc, tm, now)
	c.RoutingFreshness = freshness(c.RoutingStaleCause == "")
	c.Serving = servingSummary(tm, c.RoutingStaleReason, now)
	leftOut := leftOutReasons(tm)
	for _, t := range conditionTypes {
		cond := meta.FindStatusCondition(tm.Status.Conditions, t)
		if cond == nil {
			c.Conditions = append(c.Conditions, ConditionView{Type: t, Status: string(metav1.ConditionUnknown), Reason: NotRecorded, Freshness: Unverifiable})
			continue
		}
		// A frozen map's conditions are as old as the map, except the one that says it is
		// frozen, which the manager writes on every refusal.
		current := c.RoutingStaleCause == "" || (c.RoutingStaleCause == Frozen && t == omev1beta1.TrafficMapSettingsAccepted)
		lt := cond.LastTransitionTime
		c.Conditions = append(c.Conditions, ConditionView{
			Type: t, Status: string(cond.Status), Reason: cond.Reason, Message: cond.Message,
			ObservedGeneration: cond.ObservedGeneration, LastTransitionTime: &lt,
			Freshness: freshness(current && conditionCurrent(cond.ObservedGeneration, tm)),
		})
	}
	for _, e := range tm.Spec.Entries {
		home := RouteHome{Cluster: e.Cluster, Weight: e.Weight, Healthy: e.Healthy, DrainRefs: append([]string{}, e.DrainRefs...),
			WeightReason: string(e.WeightReason), WeightMessage: e.WeightMessage, Warning: e.Warning, Tier: e.Tier,
			Serving: servingView(e, leftOut, c.RoutingStaleReason)}
		home.EndpointOrigin, home.PathPresent = origin(e.Endpoint)
		if home.EndpointOrigin == InvalidEndpoint {
			c.Issues = append(c.Issues, "RouteHome "+e.Cluster+": "+InvalidEndpoint)
		}
		home.Capacity = CapacityView{Source: string(e.Capacity.Source), Allocated: e.Capacity.Allocated, Ready: e.Capacity.Ready,
			Reported: e.Capacity.Reported, FallbackReason: e.Capacity.FallbackReason}
		if e.Capacity.Factor != nil {
			home.Capacity.Factor = e.Capacity.Factor.String()
		}
		if p := e.Probe; p != nil {
			home.Probe = &ProbeView{Result: string(p.Result), Message: p.Message, Gated: p.Gated,
				ConsecutiveFailures: p.ConsecutiveFailures, LastProbeTime: p.LastProbeTime.DeepCopy(),
				LastProbeAge: age(p.LastProbeTime, now), PolicyDigest: p.PolicyDigest,
				WouldGate: p.WouldGate, DampingFactor: p.DampingFactor, RampPercent: p.RampPercent,
				LastLiftTime: p.LastLiftTime.DeepCopy()}
		}
		c.RouteHomes = append(c.RouteHomes, home)
	}
	return r
}

func freshness(current bool) string {
	if current {
		return Current
	}
	return Stale
}

// origin is scheme://host[:port] of an http(s) endpoint, and whether it had a path or
// query that the report leaves out.
func origin(endpoint string) (string, bool) {
	if endpoint == "" {
		return NotRecorded, false
	}
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return InvalidEndpoint, false
	}
	return u.Scheme + "://" + u.Host, (u.Path != "" && u.Path != "/") || u.RawQuery != ""
}

// age is how long ago t was, kubectl style ("12s ago").
func age(t *metav1.Time, now time.Time) string {
	switch {
	case t == nil:
		return NotRecorded
	case t.After(now):
		return "FutureDated"
	}
	return duration.HumanDuration(now.Sub(t.Time)) + " ago"
}

func validateName(s string) []string { return validation.IsDNS1123Subdomain(s) }

// Report is the endpoint report of what Read returned, for views built on it (traffic
// status).
func Report(isvc *omev1beta1.InferenceService, tm *omev1beta1.TrafficMap, tmErr error, now time.Time) *EndpointReport {
	return buildReport(isvc, tm, tmErr, now)
}

// ValidName says whether s can name an InferenceService.
func ValidName(s string) bool { return len(validateName(s)) == 0 }

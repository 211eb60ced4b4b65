package traffic

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/cmd/kubectl-ome/app/placement"
	"github.com/ome-routing/operator/pkg/drain"
)

// Evidence marks where a value of `traffic status` comes from. Observed, evidence from the
// gateway's own counters, is never given: the operator has no such signal yet.
const (
	EvidenceReported = "Reported"
	EvidenceComputed = "Computed"
	NotObserved      = "NotObserved"
	// notObservedReason says why no value is Observed.
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
	TierSplit string       `json:"tierSplit,omitempty"`
	Observed  ObservedView `json:"observed"`
	Warnings  []string     `json:"warnings"`
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
	// Weight and DrainRefs are Reported: the map's spec as the manager wrote it.
	Weight    int32    `json:"weight"`
	DrainRefs []string `json:"drainRefs"`
	// SharePercent is Computed: the weight's share of the map's total, in whole percent.
	SharePercent int64 `json:"sharePercent"`
	// AnnotationDrains is Computed: the IDs of the annotation's drains naming this cluster.
	AnnotationDrains []string `json:"annotationDrains"`
	// Tier is Reported: the failover tier the cluster is in; empty without failover.
	Tier string `json:"tier,omitempty"`
}

// ObservedView says that no measured traffic is shown, and why.
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

// buildStatus builds the report from the endpoint report and the service's annotation.
func buildStatus(isvc *omev1beta1.InferenceService, endpoint *placement.EndpointReport) *StatusReport {
	r := &StatusReport{CollectedAt: endpoint.CollectedAt, Target: endpoint.Target, TrafficMap: endpoint.Content.TrafficMap,
		Drains: []DrainView{}, RouteHomes: []StatusRouteHome{}, Warnings: []string{},
		Observed: ObservedView{State: NotObserved, Reason: notObservedReason}}
	r.SetGroupVersionKind(endpoint.GroupVersionKind().GroupVersion().WithKind("TrafficStatusReport"))
	value, present := isvc.Annotations[drain.Annotation]
	overrides, err := drain.Parse(value, present)
	if err != nil {
		r.DrainError = err.Error()
	}
	if f := endpoint.Content.Failover; f != nil {
		r.TierSplit = f.Summary
	}
	var total int64
	for _, h := range endpoint.Content.RouteHomes {
		total += int64(h.Weight)
	}
	clusters := map[string]bool{}
	for _, h := range endpoint.Content.RouteHomes {
		clusters[h.Cluster] = true
		home := StatusRouteHome{Cluster: h.Cluster, Weight: h.Weight, DrainRefs: h.DrainRefs, AnnotationDrains: []string{}, Tier: h.Tier}
		if total > 0 {
			home.SharePercent = int64(h.Weight) * 100 / total
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

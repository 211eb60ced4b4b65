package placement

import (
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

// The words of `placement status`.
const (
	Declared  = "Declared"
	Admitted  = "Admitted"
	Admitting = "Admitting"
	// Structured is the only input source here: placement is spec.placement, never the
	// legacy annotations OME also reads.
	Structured = "Structured"
)

// StatusReport is `placement status`'s view of where a service is placed, uncut.
type StatusReport struct {
	metav1.TypeMeta `json:",inline"`
	CollectedAt     metav1.Time   `json:"collectedAt"`
	Target          ReportTarget  `json:"target"`
	Content         StatusContent `json:"content"`
	// Warnings is always empty: problems are in content.issues.
	Warnings []string `json:"warnings"`
}

// StatusContent is what the service's spec.placement and status.placement say, with the
// TrafficMap's state and freshness.
type StatusContent struct {
	// Mode is spec.placement.mode and whether it was declared; NotRecorded when it is not,
	// as this project applies no default mode.
	Mode string `json:"mode"`
	// Placement is status.placement.phase (Pending or Placed) as the control plane reported
	// it, NotRecorded without one, Unknown for a phase this plugin does not know.
	Placement string `json:"placement"`
	// Freshness is always Unverifiable: status.placement records no generation.
	Freshness   string `json:"freshness"`
	InputSource string `json:"inputSource"`
	// Selectors is Valid, NoRequirements (no term, or only empty terms: every Ready
	// cluster), InvalidSelector, BudgetExceeded, or NotRecorded without spec.placement.
	Selectors string `json:"selectors"`
	// ReportedCluster is the one home of a placement with exactly one; empty otherwise.
	ReportedCluster string `json:"reportedCluster"`
	// EndpointOrigin is the origin of the service's status.url.
	EndpointOrigin string `json:"endpointOrigin"`
	PathPresent    bool   `json:"pathPresent"`
	// ServiceOrigin is always NotRecorded: this project records no service address of
	// its own on the source service (the global host is the publisher's).
	ServiceOrigin     string          `json:"serviceOrigin"`
	HomeInspection    Inspection      `json:"homeInspection"`
	ProvenanceInspect Inspection      `json:"provenanceInspection"`
	TrafficMap        TrafficMapState `json:"trafficMap"`
	RoutingFreshness  string          `json:"routingFreshness"`
	// RoutingStaleReason says why the routing is Stale, in a sentence.
	RoutingStaleReason string `json:"routingStaleReason,omitempty"`
	// Serving sums up the route homes' serving states, as `placement endpoint` shows it.
	Serving *ServingSummary `json:"serving,omitempty"`
	Homes   []HomeView      `json:"homes"`
	Issues  []string        `json:"issues"`
}

// HomeView is one entry of status.placement.candidates.
type HomeView struct {
	Cluster string `json:"cluster"`
	// State is Admitted when the cluster has admitted replicas, else Admitting.
	State            string `json:"state"`
	HomeOrigin       string `json:"homeOrigin"`
	PathPresent      bool   `json:"pathPresent"`
	AdmittedReplicas int32  `json:"admittedReplicas"`
	ReadyReplicas    int32  `json:"readyReplicas"`
	// Provenance, PolicyInspection and GroupInspection stand for OME's placement origins,
	// placement policies and rollout groups, which this project does not have: they are
	// always NotRecorded.
	Provenance       string     `json:"provenance"`
	PolicyInspection Inspection `json:"policyInspection"`
	GroupInspection  Inspection `json:"groupInspection"`
	// Serving is the serving state of the home's route home (or Stale), and its reason;
	// NotRecorded when the map has no route home for it.
	Serving string `json:"serving"`
}

// DeepCopyObject makes the report a runtime.Object for cli-runtime's printers; it is built
// once and only printed.
func (r *StatusReport) DeepCopyObject() runtime.Object {
	c := *r
	c.Content.Homes = slices.Clone(r.Content.Homes)
	c.Content.Issues = slices.Clone(r.Content.Issues)
	return &c
}

// buildStatus turns what Read returned into the status report.
func buildStatus(isvc *omev1beta1.InferenceService, tm *omev1beta1.TrafficMap, tmErr error, now time.Time) *StatusReport {
	return statusFrom(isvc, buildReport(isvc, tm, tmErr, now))
}

// statusFrom is the status report of the service whose endpoint report is ep.
func statusFrom(isvc *omev1beta1.InferenceService, ep *EndpointReport) *StatusReport {
	r := &StatusReport{CollectedAt: ep.CollectedAt, Target: ep.Target, Warnings: []string{}}
	r.SetGroupVersionKind(reportGroupVersion.WithKind("PlacementStatusReport"))
	c := &r.Content
	c.Issues = []string{}
	c.Mode, c.Selectors = modeOf(isvc.Spec.Placement), selectorsOf(isvc.Spec.Placement)
	c.Freshness, c.InputSource, c.ServiceOrigin = Unverifiable, Structured, NotRecorded
	c.EndpointOrigin, c.PathPresent = origin(isvc.Status.URL)
	c.TrafficMap, c.RoutingFreshness, c.RoutingStaleReason = ep.Content.TrafficMap, ep.Content.RoutingFreshness, ep.Content.RoutingStaleReason
	c.Serving = ep.Content.Serving
	c.Homes = []HomeView{}
	ps := isvc.Status.Placement
	if ps == nil {
		c.Placement = NotRecorded
		c.HomeInspection = Inspection{State: NotRecorded}
		c.ProvenanceInspect = Inspection{State: NotRecorded}
		return r
	}
	c.Placement = phaseOf(ps.Phase)
	c.Homes, c.HomeInspection, c.Issues = homeViews(ps.Candidates)
	serving := map[string]string{}
	for _, h := range ep.Content.RouteHomes {
		serving[h.Cluster] = h.Serving.State
		if h.Serving.Reason != "" && h.Serving.State != "Stale" {
			serving[h.Cluster] += " (" + h.Serving.Reason + ")"
		}
	}
	for i := range c.Homes {
		c.Homes[i].Serving = NotRecorded
		if s, ok := serving[c.Homes[i].Cluster]; ok {
			c.Homes[i].Serving = s
		}
	}
	// Every home's origin is unrecorded here (no placement origins), so none is kept.
	c.ProvenanceInspect = Inspection{State: NotRecorded, Total: len(ps.Candidates)}
	if len(c.Homes) == 1 {
		c.ReportedCluster = c.Homes[0].Cluster
	}
	return r
}

func modeOf(p *omev1beta1.Placement) string {
	switch {
	case p == nil || p.Mode == "":
		return NotRecorded
	case p.Mode == omev1beta1.PlacementModeSingle, p.Mode == omev1beta1.PlacementModeAll, p.Mode == omev1beta1.PlacementModeSplit:
		return string(p.Mode) + " (" + Declared + ")"
	}
	return Unknown
}

func phaseOf(p omev1beta1.PlacementPhase) string {
	switch p {
	case "":
		return NotRecorded
	case omev1beta1.PlacementPhasePending, omev1beta1.PlacementPhasePlaced:
		return string(p) + " (reported)"
	}
	return Unknown
}

// The CRD's bounds on clusterAffinity; an object past them (stored before the bounds, or
// through another schema) is not judged.
const (
	maxTerms        = 16
	maxRequirements = 16
	maxValues       = 256
)

// selectorsOf judges spec.placement's selectors the way the manager reads them
// (pkg/placement): an unknown field key or operator selects nothing, so it is invalid.
func selectorsOf(p *omev1beta1.Placement) string {
	if p == nil {
		return NotRecorded
	}
	if p.Policy != omev1beta1.PlacementPolicyClusterAffinity {
		return "InvalidSelector"
	}
	if len(p.ClusterAffinity) > maxTerms {
		return BudgetExceeded
	}
	requirements := 0
	for _, t := range p.ClusterAffinity {
		if len(t.MatchFields) > maxRequirements {
			return BudgetExceeded
		}
		requirements += len(t.MatchFields) + len(t.MatchLabels)
		for _, f := range t.MatchFields {
			if len(f.Values) > maxValues {
				return BudgetExceeded
			}
			if f.Key != "metadata.name" || (f.Operator != omev1beta1.MatchOperatorIn && f.Operator != omev1beta1.MatchOperatorNotIn) {
				return "InvalidSelector"
			}
		}
	}
	if requirements == 0 {
		return "NoRequirements"
	}
	return "Valid"
}

// homeViews checks and sorts the candidates. A candidate without a valid cluster name or
// with negative or impossible counts is malformed and left out; a cluster listed twice is
// a conflict, and only its first entry is kept.
func homeViews(candidates []omev1beta1.PlacementCandidate) ([]HomeView, Inspection, []string) {
	homes := []HomeView{}
	issues := []string{}
	insp := Inspection{State: Validated, Total: len(candidates)}
	malformed, duplicates := 0, 0
	seen := map[string]bool{}
	for _, cand := range candidates {
		switch {
		case len(validation.IsDNS1123Subdomain(cand.Cluster)) > 0 || cand.AdmittedReplicas < 0 || cand.ReadyReplicas < 0 ||
			cand.ReadyReplicas > cand.AdmittedReplicas:
			malformed++
			continue
		case seen[cand.Cluster]:
			duplicates++
			continue
		}
		seen[cand.Cluster] = true
		h := HomeView{Cluster: cand.Cluster, State: Admitting, AdmittedReplicas: cand.AdmittedReplicas, ReadyReplicas: cand.ReadyReplicas,
			Provenance: NotRecorded, PolicyInspection: Inspection{State: NotRecorded}, GroupInspection: Inspection{State: NotRecorded}}
		if cand.AdmittedReplicas > 0 {
			h.State = Admitted
		}
		h.HomeOrigin, h.PathPresent = origin(cand.Endpoint)
		if h.HomeOrigin == InvalidEndpoint {
			issues = append(issues, "Home "+cand.Cluster+": "+InvalidEndpoint)
		}
		homes = append(homes, h)
	}
	slices.SortFunc(homes, func(a, b HomeView) int { return strings.Compare(a.Cluster, b.Cluster) })
	insp.Kept = len(homes)
	switch {
	case malformed > 0:
		insp.State = MalformedPayload
		issues = append(issues, "Home inspection: "+MalformedPayload+" ("+itoa(malformed)+")")
	case duplicates > 0:
		insp.State = ConflictingDuplicates
		issues = append(issues, "Home inspection: "+ConflictingDuplicates+" ("+itoa(duplicates)+")")
	}
	return homes, insp, issues
}

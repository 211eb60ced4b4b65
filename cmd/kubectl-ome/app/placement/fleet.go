package placement

import (
	"context"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/controller-runtime/pkg/client"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/cmd/kubectl-ome/app/util"
	"github.com/ome-routing/operator/pkg/clusterstatus"
	pkgplacement "github.com/ome-routing/operator/pkg/placement"
)

// The fleet is read within the plugin's one page budget for WorkloadClusters
// (util.FleetBudget, 64): past it the view is Partial.
const (
	fleetPages  = util.FleetPages
	fleetBudget = util.FleetBudget
)

// The states and reasons of the fleet read.
const (
	Partial            = "Partial"
	PageBudgetExceeded = "PageBudgetExceeded"
	UnsupportedAPI     = "UnsupportedAPI"
)

// fleetRead is what listing the WorkloadClusters returned.
type fleetRead = util.FleetList

// readFleet lists the WorkloadClusters within the page budget. An error is part of the
// view, never the command's failure.
func readFleet(ctx context.Context, c client.Client) fleetRead {
	return util.ListFleet(ctx, c)
}

// FleetView is the registered workload clusters as the explain report sees them.
type FleetView struct {
	// State is Observed (every cluster read), Partial (some pages read, then an error or
	// the page budget) or Unavailable (nothing read).
	State string `json:"state"`
	// Reason says why the state is not Observed: Forbidden, Timeout, Cancelled,
	// UnsupportedAPI (no WorkloadCluster API), Unreadable or PageBudgetExceeded.
	Reason    string `json:"reason,omitempty"`
	Returned  int    `json:"returned"`
	Admitted  int    `json:"admitted"`
	Pages     int    `json:"pages"`
	Complete  bool   `json:"complete"`
	Truncated bool   `json:"truncated"`
	// Clusters are sorted by name.
	Clusters []ClusterView `json:"clusters"`
}

// ClusterView is one WorkloadCluster.
type ClusterView struct {
	Name string `json:"name"`
	// SelectorCompatible is True when spec.placement selects the cluster (Ready or not),
	// False when it does not, Unknown without spec.placement.
	SelectorCompatible string `json:"selectorCompatible"`
	// Ready is the Ready condition's status when it is current, Unknown otherwise, and
	// ReadyFreshness says which: Current, Stale, Unverifiable (no condition) or Invalid.
	Ready          string `json:"ready"`
	ReadyFreshness string `json:"readyFreshness"`
	// ReadyReason is the condition's reason when the plugin knows it, OtherReportedReason
	// when not, NotRecorded without a condition.
	ReadyReason         string     `json:"readyReason"`
	ConditionInspection Inspection `json:"conditionInspection"`
	// ReportedHome is "<cluster> (Admitted|Admitting)" when status.placement lists the
	// cluster as a home of the service, NotRecorded otherwise.
	ReportedHome string `json:"reportedHome"`
	// ConnectionSource is KubeConfigReferenceNotResolved when the cluster names a
	// kubeconfig Secret, ClusterProfileReferenceNotResolved when it names a ClusterProfile
	// (the plugin reads neither), Unknown when it names none.
	ConnectionSource string `json:"connectionSource"`
}

// fleetView judges what readFleet returned for the service.
func fleetView(f fleetRead, isvc *omev1beta1.InferenceService, homes []HomeView) FleetView {
	v := FleetView{State: Observed, Returned: len(f.Items), Pages: f.Pages, Complete: f.Err == nil && !f.More, Clusters: []ClusterView{}}
	switch {
	case f.Err != nil && f.Pages == 0:
		v.State, v.Reason = Unavailable, fleetReason(f.Err)
	case f.Err != nil:
		v.State, v.Reason, v.Truncated = Partial, fleetReason(f.Err), true
	case f.More:
		v.State, v.Reason, v.Truncated = Partial, PageBudgetExceeded, true
	}
	for i := range f.Items {
		wc := &f.Items[i]
		if len(validation.IsDNS1123Subdomain(wc.Name)) > 0 {
			continue
		}
		v.Clusters = append(v.Clusters, clusterView(wc, isvc.Spec.Placement, homes))
	}
	slices.SortFunc(v.Clusters, func(a, b ClusterView) int { return strings.Compare(a.Name, b.Name) })
	v.Admitted = len(v.Clusters)
	return v
}

func fleetReason(err error) string {
	if meta.IsNoMatchError(err) || apierrors.IsNotFound(err) {
		return UnsupportedAPI
	}
	return readReason(err)
}

func clusterView(wc *omev1beta1.WorkloadCluster, p *omev1beta1.Placement, homes []HomeView) ClusterView {
	v := ClusterView{Name: wc.Name, SelectorCompatible: selectorCompatible(wc, p), ReportedHome: NotRecorded,
		ConnectionSource: connectionSource(wc.Spec.ClusterSource)}
	for _, h := range homes {
		if h.Cluster == wc.Name {
			v.ReportedHome = h.Cluster + " (" + h.State + ")"
		}
	}
	v.Ready, v.ReadyFreshness, v.ReadyReason, v.ConditionInspection = readyOf(wc)
	return v
}

// connectionSource names what the cluster connects through, which the plugin does not
// resolve: it reads neither Secrets nor ClusterProfiles.
func connectionSource(src omev1beta1.ClusterSource) string {
	switch {
	case src.KubeConfig != nil && src.KubeConfig.SecretRef.Name != "":
		return "KubeConfigReferenceNotResolved"
	case src.ClusterProfileRef != nil && src.ClusterProfileRef.Name != "":
		return "ClusterProfileReferenceNotResolved"
	}
	return Unknown
}

// selectorCompatible asks pkg/placement, the manager's own rule, whether the placement
// selects the cluster whatever its readiness: it is asked about a copy that is Ready.
func selectorCompatible(wc *omev1beta1.WorkloadCluster, p *omev1beta1.Placement) string {
	if p == nil {
		return Unknown
	}
	ready := wc.DeepCopy()
	ready.Status.Conditions = []metav1.Condition{{Type: omev1beta1.WorkloadClusterReady, Status: metav1.ConditionTrue}}
	if len(pkgplacement.Candidates(p, []omev1beta1.WorkloadCluster{*ready})) == 1 {
		return "True"
	}
	return "False"
}

// readyOf reads the Ready condition: its status only while it was written for the
// cluster's generation, its reason, and how much of the conditions it inspected.
func readyOf(wc *omev1beta1.WorkloadCluster) (status, fresh, reason string, insp Inspection) {
	insp = Inspection{State: Validated, Total: len(wc.Status.Conditions)}
	ready := clusterstatus.ReadyConditions(wc)
	switch {
	case len(ready) == 0:
		insp.State = NotRecorded
		return Unknown, Unverifiable, NotRecorded, insp
	case len(ready) > 1:
		insp.State = ConflictingDuplicates
		return Unknown, Invalid, OtherReportedReason, insp
	}
	c := ready[0]
	insp.Kept = 1
	reason = OtherReportedReason
	if slices.Contains(clusterstatus.KnownReadyReasons, omev1beta1.WorkloadClusterConditionReason(c.Reason)) {
		reason = c.Reason
	}
	// The freshness is `cluster status`'s judgement, in OME's explain words: a condition
	// without a generation is Unverifiable here where that command says Unobserved.
	switch clusterstatus.Freshness(c, wc.Generation) {
	case clusterstatus.Invalid:
		if c.Status != metav1.ConditionTrue && c.Status != metav1.ConditionFalse && c.Status != metav1.ConditionUnknown {
			insp.State = MalformedPayload
		}
		return Unknown, Invalid, reason, insp
	case clusterstatus.Unobserved:
		return Unknown, Unverifiable, reason, insp
	case clusterstatus.Stale:
		return Unknown, Stale, reason, insp
	}
	return string(c.Status), Current, reason, insp
}

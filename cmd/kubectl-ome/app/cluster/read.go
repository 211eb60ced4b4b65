package cluster

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/cmd/kubectl-ome/app/util"
)

// Budget is the most clusters one report shows: past it the report is Partial (the
// plugin's one page budget for WorkloadClusters, as for `placement explain`'s fleet rows).
const Budget = util.FleetBudget

// read is what listing the WorkloadClusters returned: the clusters of the pages that came
// back, how many pages, whether more were left, and why a request failed ("" when none
// did).
type read struct {
	Items   []omev1beta1.WorkloadCluster
	Pages   int
	More    bool
	Failure string
}

// readClusters lists the WorkloadClusters within the page budget. A failed request is
// part of the report, never the command's failure.
func readClusters(ctx context.Context, c client.Client) read {
	l := util.ListFleet(contextOf(ctx), c)
	out := read{Items: l.Items, Pages: l.Pages, More: l.More}
	if l.Err != nil {
		out.Failure = failure(l.Err)
	}
	return out
}

// Forbidden is the reason of a read the API server refused for want of the right.
const Forbidden = "Forbidden"

// UnsupportedAPI is the reason of a read from an API server without the WorkloadCluster
// API (the CRDs are not installed).
const UnsupportedAPI = "UnsupportedAPI"

// failure names why a list failed in one word, as the plugin's other requests do
// (util.Reason: the API server's reason, Timeout, Cancelled, Unreachable, Unreadable), or
// UnsupportedAPI.
func failure(err error) string {
	if meta.IsNoMatchError(err) || apierrors.IsNotFound(err) {
		return UnsupportedAPI
	}
	return util.Reason(err)
}

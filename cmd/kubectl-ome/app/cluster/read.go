package cluster

import (
	"context"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/cmd/kubectl-ome/app/util"
)

// The clusters are read in at most pages pages of pageSize: past Budget (64) the report is
// Partial, so that a large fleet cannot make the command slow or its table endless (the
// same bound as `placement explain`'s fleet rows).
const (
	pageSize = 32
	pages    = 2
	// Budget is the most clusters one report shows.
	Budget = pageSize * pages
	// requestBudget bounds each list request.
	requestBudget = 10 * time.Second
)

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
	ctx = contextOf(ctx)
	var out read
	cont := ""
	for out.Pages < pages {
		var list omev1beta1.WorkloadClusterList
		rctx, cancel := context.WithTimeout(ctx, requestBudget)
		err := c.List(rctx, &list, client.Limit(pageSize), client.Continue(cont))
		cancel()
		if err != nil {
			out.Failure = failure(err)
			return out
		}
		out.Pages++
		out.Items = append(out.Items, list.Items...)
		cont = list.Continue
		if cont == "" {
			return out
		}
	}
	out.More = true
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

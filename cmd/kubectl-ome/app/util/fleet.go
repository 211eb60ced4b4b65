package util

import (
	"context"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

// The commands that list the registered WorkloadClusters (`cluster status`, and the fleet
// rows of `placement explain`) read at most FleetPages pages of FleetPageSize: past
// FleetBudget clusters their report is partial, so that a large fleet cannot make a command
// slow or its table endless.
const (
	FleetPageSize = 32
	FleetPages    = 2
	// FleetBudget is the most WorkloadClusters one report shows.
	FleetBudget = FleetPageSize * FleetPages
	// fleetRequestBudget bounds each list request.
	fleetRequestBudget = 10 * time.Second
)

// FleetList is what listing the WorkloadClusters returned: the clusters of the pages that
// came back, how many pages, whether more were left, and the error of the request that
// failed (nil when none did).
type FleetList struct {
	Items []omev1beta1.WorkloadCluster
	Pages int
	More  bool
	Err   error
}

// ListFleet lists the WorkloadClusters within the page budget. A failed request ends the
// list and is part of what it returns, never the command's failure.
func ListFleet(ctx context.Context, c client.Client) FleetList {
	var out FleetList
	cont := ""
	for out.Pages < FleetPages {
		var list omev1beta1.WorkloadClusterList
		rctx, cancel := context.WithTimeout(ctx, fleetRequestBudget)
		err := c.List(rctx, &list, client.Limit(FleetPageSize), client.Continue(cont))
		cancel()
		if err != nil {
			out.Err = err
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

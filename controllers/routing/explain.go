package routing

import (
	"slices"
	"strings"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/controllers/internal/mapstatus"
	"github.com/ome-routing/operator/pkg/trafficmap"
)

// withExplanations adds to the routing reconciler's status fields the clusters the
// placement selects that have no entry (excludedClusters) and the one-line answer to
// "which clusters get no traffic, and why" (noTraffic, the NO-TRAFFIC column). Both are
// made from the finished entries, the exclusions and the clusters the publisher's route
// leaves out alone, so they change only when those do. An empty value is left out (nil),
// which drops the field.
func withExplanations(fields map[string]any, entries []omev1beta1.TrafficMapEntry, excluded []omev1beta1.ExcludedCluster,
	leftOut []omev1beta1.LeftOutCluster) map[string]any {
	excluded = slices.SortedFunc(slices.Values(excluded), func(a, b omev1beta1.ExcludedCluster) int {
		return strings.Compare(a.Cluster, b.Cluster)
	})
	fields["excludedClusters"] = nil
	if len(excluded) > 0 {
		// The list holds the first MaxExcludedClusters by name, which keeps a map at its
		// maxima within one etcd write; noTraffic below counts them all.
		fields["excludedClusters"] = mapstatus.ListField(excluded[:min(len(excluded), trafficmap.MaxExcludedClusters)])
	}
	fields["noTraffic"] = nil
	if s := trafficmap.NoTraffic(entries, excluded, leftOut); s != "" {
		fields["noTraffic"] = s
	}
	return fields
}

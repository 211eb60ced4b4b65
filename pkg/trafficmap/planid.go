package trafficmap

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

// PlanID is a map's spec.placementPlanID: a digest of which clusters its entries are on
// and at which endpoints, in cluster order. Weights, probes and capacity move every round
// and are not the placement, so they are left out: the ID moves only when a home joins,
// leaves or changes its endpoint, which is what a placement draining a home waits on.
func PlanID(entries []omev1beta1.TrafficMapEntry) string {
	homes := make([]string, 0, len(entries))
	for _, e := range entries {
		homes = append(homes, e.Cluster+"\x00"+e.Endpoint)
	}
	slices.Sort(homes)
	sum := sha256.Sum256([]byte("v1\x00" + strings.Join(homes, "\x00")))
	return "sha256:" + hex.EncodeToString(sum[:])
}

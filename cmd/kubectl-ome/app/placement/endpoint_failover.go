package placement

import (
	"fmt"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/cmd/kubectl-ome/app/util"
)

// FailoverView is the tier split the map's weights were built under (its spec.failover).
type FailoverView struct {
	OverprovisioningPercent int32      `json:"overprovisioningPercent"`
	Tiers                   []TierView `json:"tiers"`
	// Summary is each tier's load in one line, as the manager wrote it.
	Summary string `json:"summary,omitempty"`
}

// TierView is one tier's health score (of 100) and the share of the traffic it takes, in
// whole percent.
type TierView struct {
	Name        string `json:"name"`
	Health      int32  `json:"health"`
	LoadPercent int32  `json:"loadPercent"`
}

// failoverView copies the map's tier split, nil without failover.
func failoverView(f *omev1beta1.TrafficMapFailover) *FailoverView {
	if f == nil {
		return nil
	}
	v := &FailoverView{OverprovisioningPercent: f.OverprovisioningPercent, Tiers: make([]TierView, 0, len(f.Tiers)), Summary: f.Summary}
	for _, t := range f.Tiers {
		v.Tiers = append(v.Tiers, TierView{Name: t.Name, Health: t.Health, LoadPercent: t.LoadPercent})
	}
	return v
}

// failoverRows show the tier split before the route homes, only while the map has one, so
// that a map without failover prints as it always has. Every tier gets its row (a map
// holds at most nine): the split is the answer to "why does this tier take what it takes?".
func failoverRows(f *FailoverView, wide bool) []util.Row {
	if f == nil {
		return nil
	}
	rows := []util.Row{{Field: "Failover", Value: fmt.Sprintf("%d tier(s); overprovisioning %d%%", len(f.Tiers), f.OverprovisioningPercent)}}
	for _, t := range f.Tiers {
		rows = append(rows, util.Row{Field: "Failover tier", Value: fmt.Sprintf("%s: load %d%%; health %d of 100", t.Name, t.LoadPercent, t.Health),
			Wrap: true, Whole: wide})
	}
	return rows
}

// tierRow is the failover tier a route home is in, only while the map has failover or the
// home names a tier; a home the map gives no tier reads NotRecorded.
func tierRow(h RouteHome, failover bool) []util.Row {
	if h.Tier == "" && !failover {
		return nil
	}
	tier := h.Tier
	if tier == "" {
		tier = NotRecorded
	}
	return []util.Row{{Field: "Tier", Value: tier}}
}

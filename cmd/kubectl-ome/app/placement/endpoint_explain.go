package placement

import (
	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/cmd/kubectl-ome/app/util"
)

// ExcludedView is a cluster the placement selects that has no route home, and why.
type ExcludedView struct {
	Cluster string `json:"cluster"`
	Reason  string `json:"reason"`
	Message string `json:"message,omitempty"`
}

func excludedViews(excluded []omev1beta1.ExcludedCluster) []ExcludedView {
	out := make([]ExcludedView, 0, len(excluded))
	for _, x := range excluded {
		out = append(out, ExcludedView{Cluster: x.Cluster, Reason: string(x.Reason), Message: x.Message})
	}
	return out
}

// weightRow says why a route home's weight is what it is. The cause is the answer to
// "why does this cluster get no traffic?", and its end (an address, a setting) matters as
// much as its start, so it wraps and is never cut; -o wide prints it on one line.
func weightRow(h RouteHome, wide bool) util.Row {
	value := NotRecorded
	if h.WeightReason != "" {
		value = h.WeightReason
		if h.WeightMessage != "" {
			value += ": " + h.WeightMessage
		}
	}
	return util.Row{Field: "Weight reason", Value: value, Wrap: true, Whole: wide}
}

// excludedRows list the clusters left out of the map, after the route homes: the table
// shows the first previewHomes of them, -o wide every one.
func excludedRows(excluded []ExcludedView, wide bool) []util.Row {
	rows, shown := preview("Excluded clusters", len(excluded), wide)
	for _, x := range excluded[:shown] {
		cause := x.Reason
		if x.Message != "" {
			cause += ": " + x.Message
		}
		rows = append(rows,
			util.Row{Field: "Excluded cluster", Value: x.Cluster},
			util.Row{Field: "Exclusion", Value: cause, Wrap: true, Whole: wide},
		)
	}
	return rows
}

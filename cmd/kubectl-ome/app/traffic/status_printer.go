package traffic

import (
	"fmt"
	"strings"

	"github.com/ome-routing/operator/cmd/kubectl-ome/app/placement"
	"github.com/ome-routing/operator/cmd/kubectl-ome/app/util"
)

// statusPreviewHomes is how many route homes the narrow table lists before pointing at
// -o wide, as in `placement endpoint`.
const statusPreviewHomes = 4

// statusRows renders the report as FIELD/VALUE rows; each value names its evidence.
func statusRows(r *StatusReport, wide bool) []util.Row {
	rows := []util.Row{
		{Field: "TrafficMap state", Value: r.TrafficMap.State},
		{Field: "TrafficMap reason", Value: r.TrafficMap.Reason},
		{Field: "Drain annotation", Value: drainSummary(r)},
	}
	if r.Serving != nil {
		// The answer first: how many homes take traffic, and whether the answer is fresh.
		rows = append(rows[:2], append(placement.ServingRows(r.Serving, wide), rows[2:]...)...)
	}
	if r.TierSplit != "" {
		// Only with failover, so that a map without prints as it always has.
		rows = append(rows, util.Row{Field: "Tier split", Value: fmt.Sprintf("%s (%s)", r.TierSplit, EvidenceReported), Wrap: true, Whole: wide})
	}
	homes := r.RouteHomes
	if !wide && len(homes) > statusPreviewHomes {
		rows = append(rows, util.Row{Field: "Route homes", Value: fmt.Sprintf("%d/%d; use -o wide or json", statusPreviewHomes, len(homes))})
		homes = homes[:statusPreviewHomes]
	}
	for _, h := range homes {
		refs := "Validated"
		if len(h.DrainRefs) > 0 {
			refs = strings.Join(h.DrainRefs, ",")
		}
		ann := "None"
		if len(h.AnnotationDrains) > 0 {
			ann = strings.Join(h.AnnotationDrains, ",")
		}
		rows = append(rows, util.Row{Field: "Route home", Value: h.Cluster})
		if h.Tier != "" {
			rows = append(rows, util.Row{Field: "Tier", Value: fmt.Sprintf("%s (%s)", h.Tier, EvidenceReported)})
		}
		rows = append(rows,
			util.Row{Field: "Weight", Value: weightCell(h)},
			util.Row{Field: "Share", Value: fmt.Sprintf("%d%% (%s)", h.SharePercent, EvidenceComputed)},
			util.Row{Field: "Drain refs", Value: fmt.Sprintf("%s (%s)", refs, EvidenceReported)},
			util.Row{Field: "Annotation drains", Value: fmt.Sprintf("%s (%s)", ann, EvidenceComputed)},
			placement.ServingRow(h.Serving, wide),
		)
		if h.Traffic != nil {
			rows = append(rows, util.Row{Field: "Requests", Value: trafficCell(h.Traffic), Wrap: true, Whole: wide})
		}
	}
	for _, x := range r.ExcludedClusters {
		rows = append(rows, util.Row{Field: "Excluded cluster", Value: x.Cluster + " " + x.Reason + ": " + x.Message, Wrap: true, Whole: wide})
	}
	hint := "Reported is the TrafficMap; Computed is derived by the CLI"
	if r.Observed.State == EvidenceObserved {
		hint += "; Observed is the gateway's own counters"
	}
	return append(rows,
		util.Row{Field: "Observed", Value: r.Observed.State + ": " + r.Observed.Reason, Wrap: true, Whole: wide},
		util.Row{Field: "Hint", Value: hint, Wrap: true, Whole: wide},
		util.Row{Field: "View", Value: "Bounded cells; use -o json for complete identities"},
	)
}

// weightCell is a home's weight with the reason the manager gave for it.
func weightCell(h StatusRouteHome) string {
	v := fmt.Sprintf("%d (%s)", h.Weight, EvidenceReported)
	if h.WeightReason != "" {
		v += "; " + h.WeightReason
	}
	return v
}

// drainSummary counts the annotation's drains, or says it does not parse.
func drainSummary(r *StatusReport) string {
	if r.DrainError != "" {
		return "Invalid (" + EvidenceComputed + "): " + r.DrainError
	}
	held := 0
	for _, d := range r.Drains {
		if d.Held {
			held++
		}
	}
	return fmt.Sprintf("%d override(s), %d on a route home (%s)", len(r.Drains), held, EvidenceComputed)
}

// trafficCell is a home's last reading of the gateway's counters.
func trafficCell(t *ObservedTraffic) string {
	if t.Signal != "Known" || t.Requests == nil {
		return NotObserved + ": " + t.Reason
	}
	var failed int64
	if t.Failures != nil {
		failed = *t.Failures
	}
	return fmt.Sprintf("%d, %d failed, over the signal's window (%s)", *t.Requests, failed, EvidenceObserved)
}

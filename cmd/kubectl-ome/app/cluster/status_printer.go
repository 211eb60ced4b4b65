package cluster

// This file owns the table: FIELD/VALUE rows for the read as a whole, in the fixed layout
// of the plugin's other reports, then one row per cluster in kubectl's table layout.

import (
	"fmt"
	"io"
	"strconv"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/duration"
	"k8s.io/cli-runtime/pkg/printers"

	"github.com/ome-routing/operator/cmd/kubectl-ome/app/util"
	"github.com/ome-routing/operator/pkg/clusterstatus"
)

// Hints the table ends with.
const (
	HintReachability = "Ready is reachability, not capacity"
	HintPartial      = "Partial: clusters past the budget or failure not shown"
	HintForbidden    = "Check with kubectl auth can-i list workloadclusters.ome.io"
)

// summaryRows are the rows before the clusters. Observation comes first, so that a script
// can read it whatever follows.
func summaryRows(r *StatusReport) []util.Row {
	o := r.Observation
	s := r.Summary
	rows := []util.Row{
		{Field: "Observation", Value: o.State},
		{Field: "Observation reason", Value: o.Reason},
		{Field: "Clusters returned", Value: strconv.Itoa(o.Returned)},
		{Field: "Pages", Value: strconv.Itoa(o.Pages)},
		{Field: "Budget", Value: strconv.Itoa(o.Budget)},
		{Field: "Truncated", Value: strconv.FormatBool(o.Truncated)},
		{Field: "Ready", Value: fmt.Sprintf("%d of %d (True and Current)", s.Ready, len(r.Clusters))},
		{Field: "Freshness", Value: fmt.Sprintf("Current %d, Stale %d, Unobserved %d, Invalid %d", s.Freshness[clusterstatus.Current],
			s.Freshness[clusterstatus.Stale], s.Freshness[clusterstatus.Unobserved], s.Freshness[clusterstatus.Invalid])},
		{Field: "Sources", Value: fmt.Sprintf("KubeConfigSecret %d, ClusterProfile %d, Invalid %d", s.Sources[clusterstatus.SourceKubeConfigSecret],
			s.Sources[clusterstatus.SourceClusterProfile], s.Sources[clusterstatus.SourceInvalid])},
	}
	if o.State == clusterstatus.ObservationPartial {
		rows = append(rows, util.Row{Field: "Hint", Value: HintPartial})
	}
	if o.Reason == Forbidden {
		rows = append(rows, util.Row{Field: "Hint", Value: HintForbidden, Whole: true})
	}
	return append(rows, util.Row{Field: "Hint", Value: HintReachability})
}

// columns are the clusters' columns; Priority 1 only with -o wide.
var columns = []metav1.TableColumnDefinition{
	{Name: "CLUSTER", Type: "string"},
	{Name: "SOURCE", Type: "string"},
	{Name: "READY", Type: "string"},
	{Name: "FRESHNESS", Type: "string"},
	{Name: "REASON", Type: "string"},
	{Name: "SINCE", Type: "string"},
	{Name: "REF", Type: "string", Priority: 1},
	{Name: "GENERATION", Type: "string", Priority: 1},
	{Name: "MESSAGE", Type: "string", Priority: 1},
}

// printTable prints the summary rows and, when there are clusters, a blank line and their
// table: columns three spaces apart, cells cut at util.MaxCell.
func printTable(w io.Writer, r *StatusReport, wide bool) error {
	if err := util.PrintFixedRows(w, summaryRows(r)); err != nil {
		return err
	}
	if len(r.Clusters) == 0 {
		return nil
	}
	if _, err := io.WriteString(w, "\n"); err != nil {
		return err
	}
	t := &metav1.Table{ColumnDefinitions: columns}
	for _, c := range r.Clusters {
		t.Rows = append(t.Rows, metav1.TableRow{Cells: cells(c, r.CollectedAt)})
	}
	return printers.NewTablePrinter(printers.PrintOptions{Wide: wide}).PrintObj(t, w)
}

// cells are one cluster's cells; an empty value prints as "-", as kubectl prints an unset one.
func cells(c View, now metav1.Time) []any {
	since := "-"
	if c.LastTransitionTime != nil {
		since = duration.HumanDuration(now.Sub(c.LastTransitionTime.Time))
	}
	gen := fmt.Sprintf("%d/%d", c.ObservedGeneration, c.Generation)
	return []any{c.Name, c.Source, c.Ready, c.Freshness, c.Reason, since, dash(c.SourceRef), gen, dash(util.Cut(c.Message, util.MaxCell))}
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

package placement

import (
	"fmt"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/cmd/kubectl-ome/app/util"
	"github.com/ome-routing/operator/pkg/verdict"
)

// This file shows the serving state the manager judged for each route home
// (spec.entries[].serving, pkg/verdict) and its map-level summary. The CLI never judges a
// home itself: it reads the state, and shows Stale over it when the map does not show the
// service as it is now (staleRouting: the manager stopped, lags or keeps the map frozen),
// which the manager, stopped, cannot write.

// ServingView is a route home's serving state as the report shows it.
type ServingView struct {
	// State is the state the manager recorded, or Stale when the map is stale; Unknown
	// when the manager recorded none.
	State string `json:"state"`
	// Recorded is the state the manager recorded, when State is Stale.
	Recorded string `json:"recorded,omitempty"`
	// Reason is the weight reason, or why the route leaves the home out.
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message"`
}

// ServingSummary is the map-level summary: how many homes serve and how many the map
// gives a weight, the homes not Serving, and how old the verdict is.
type ServingSummary struct {
	// State is Current, or Stale when the map does not show the service as it is now.
	State        string       `json:"state"`
	ServingHomes int32        `json:"servingHomes"`
	Weighted     int          `json:"weightedHomes"`
	Homes        int          `json:"homes"`
	HomeStates   string       `json:"homeStates,omitempty"`
	VerdictTime  *metav1.Time `json:"verdictTime,omitempty"`
	VerdictAge   string       `json:"verdictAge"`
	StaleReason  string       `json:"staleReason,omitempty"`
	// Unobserved are the route homes whose member the control plane cannot read;
	// Unreachable the clusters the placement selects that have no entry for that reason.
	Unobserved  []string `json:"unobserved,omitempty"`
	Unreachable []string `json:"unreachable,omitempty"`
}

// servingView is one entry's serving state; stale is why the map is stale, "" when current.
func servingView(e omev1beta1.TrafficMapEntry, leftOut map[string]omev1beta1.LeftOutReason, stale string) ServingView {
	reason := verdict.Reason(e.Serving, e.WeightReason, leftOut[e.Cluster])
	v := ServingView{State: verdict.Seen(e.Serving, stale), Reason: reason, Message: verdict.Message(e.Serving, reason)}
	if e.Serving == "" {
		v.Message = "the manager recorded no serving state for it"
	}
	if v.State == verdict.Stale {
		v.Recorded = verdict.Seen(e.Serving, "")
		v.Message = fmt.Sprintf("the map may no longer hold: %s; last recorded %s: %s", stale, v.Recorded, v.Message)
	}
	return v
}

// servingSummary is the map-level summary the report shows first.
func servingSummary(tm *omev1beta1.TrafficMap, stale string, now time.Time) *ServingSummary {
	s := &ServingSummary{State: Current, Homes: len(tm.Spec.Entries), HomeStates: tm.Status.HomeStates,
		VerdictAge: age(tm.Status.VerdictTime, now), StaleReason: stale}
	if tm.Status.VerdictTime != nil {
		t := *tm.Status.VerdictTime
		s.VerdictTime = &t
	}
	if stale != "" {
		s.State = verdict.Stale
	}
	if tm.Status.ServingHomes != nil {
		s.ServingHomes = *tm.Status.ServingHomes
	}
	for _, e := range tm.Spec.Entries {
		if e.Weight > 0 {
			s.Weighted++
		}
		if e.UnobservedSince != nil {
			s.Unobserved = append(s.Unobserved, e.Cluster)
		}
	}
	for _, x := range tm.Status.ExcludedClusters {
		if x.Reason == omev1beta1.ExcludedClusterUnreachable || x.Reason == omev1beta1.ExcludedClusterNotReady {
			s.Unreachable = append(s.Unreachable, x.Cluster)
		}
	}
	return s
}

// leftOutReasons are the reasons the publisher's route leaves each home out.
func leftOutReasons(tm *omev1beta1.TrafficMap) map[string]omev1beta1.LeftOutReason {
	out := map[string]omev1beta1.LeftOutReason{}
	for _, l := range tm.Status.LeftOutOfRoute {
		out[l.Cluster] = l.Reason
	}
	return out
}

// ServingRows are the summary's rows: how many homes take traffic, the verdict's age or
// Stale, and the members the control plane cannot see. traffic status starts with them.
func ServingRows(s *ServingSummary, wide bool) []util.Row {
	if s == nil {
		return []util.Row{{Field: "Serving homes", Value: NotRecorded}}
	}
	if s.VerdictTime == nil && s.State != verdict.Stale {
		// A manager that judges no serving states; a count of 0 would say no home serves.
		return []util.Row{{Field: "Serving homes", Value: NotRecorded}}
	}
	value := fmt.Sprintf("%d of %d home(s) take traffic; %d weighted; judged %s", s.ServingHomes, s.Homes, s.Weighted, s.VerdictAge)
	if s.State == verdict.Stale {
		value = fmt.Sprintf("%s: %s; last recorded %d of %d home(s) taking traffic, judged %s", verdict.Stale, s.StaleReason,
			s.ServingHomes, s.Homes, s.VerdictAge)
	}
	rows := []util.Row{{Field: "Serving homes", Value: value, Wrap: true, Whole: wide}}
	if s.HomeStates != "" {
		rows = append(rows, util.Row{Field: "Not serving", Value: s.HomeStates, Wrap: true, Whole: wide})
	}
	if n := len(s.Unobserved) + len(s.Unreachable); n > 0 {
		rows = append(rows, util.Row{Field: "Members unseen", Value: fmt.Sprintf("%d: the control plane cannot read %s", n,
			joinNames(append(append([]string{}, s.Unobserved...), s.Unreachable...))), Wrap: true, Whole: wide})
	}
	return rows
}

// ServingRow is a route home's serving state row.
func ServingRow(v ServingView, wide bool) util.Row {
	if v.State == "" {
		v = ServingView{State: verdict.Unrecorded, Message: "the manager recorded no serving state for it"}
	}
	// The message names the reason.
	return util.Row{Field: "Serving state", Value: v.State + ": " + v.Message, Wrap: true, Whole: wide}
}

func joinNames(names []string) string { return strings.Join(names, ", ") }

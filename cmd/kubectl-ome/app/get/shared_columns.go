package get

// This file owns the wide columns `kubectl ome get trafficmaps` shares with `kubectl get
// trafficmap -o wide`: the CRD's printer columns after its TARGETS, the same names in the
// same order, each cell read from the same field and printed as kubectl prints it (an
// absent value is <none>, a time is its age). The serving states among them are the
// manager's (spec.entries[].serving, summed up in status.servingHomes and homeStates):
// the table reads them, and judges nothing.

import (
	"strconv"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/duration"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

// none is kubectl's cell for a printer column whose path holds nothing.
const none = "<none>"

// sharedColumns are the CRD's wide printer columns after TARGETS, in its order.
var sharedColumns = []metav1.TableColumnDefinition{
	{Name: "SERVING", Type: "integer", Priority: 1},
	{Name: "GATED", Type: "integer", Priority: 1},
	{Name: "REFUSED", Type: "integer", Priority: 1},
	{Name: "WOULD-GATE", Type: "integer", Priority: 1},
	{Name: "RAMPING", Type: "integer", Priority: 1},
	{Name: "WARNINGS", Type: "integer", Priority: 1},
	{Name: "PROBED", Type: "date", Priority: 1},
	{Name: "VERDICT", Type: "date", Priority: 1},
	{Name: "STATES", Type: "string", Priority: 1},
	{Name: "MESSAGE", Type: "string", Priority: 1},
	{Name: "FROZEN", Type: "string", Priority: 1},
	{Name: "TIERS", Type: "string", Priority: 1},
	{Name: "NO-TRAFFIC", Type: "string", Priority: 1},
}

// sharedCells are one map's cells of sharedColumns.
func sharedCells(tm *omev1beta1.TrafficMap, now time.Time) []string {
	s := tm.Status
	tiers := ""
	if tm.Spec.Failover != nil {
		tiers = tm.Spec.Failover.Summary
	}
	return []string{
		integer(s.ServingHomes), integer(s.GatedHomes), integer(s.RefusedHomes), integer(s.WouldGateHomes), integer(s.RampingHomes),
		integer(s.WarnedHomes), since(s.LastProbeTime, now), since(s.VerdictTime, now), cell(s.HomeStates),
		conditionMessage(tm, omev1beta1.TrafficMapRoutable), conditionMessage(tm, omev1beta1.TrafficMapSettingsAccepted),
		cell(tiers), cell(s.NoTraffic),
	}
}

func integer(n *int32) string {
	if n == nil {
		return none
	}
	return strconv.Itoa(int(*n))
}

// since is a time's age as kubectl prints a date column, <none> without one.
func since(t *metav1.Time, now time.Time) string {
	if t == nil {
		return none
	}
	return ageOr(*t, now, none)
}

func cell(s string) string { return textOr(s, none) }

// ageOr is how long before now t was, as kubectl prints an age, or placeholder for a zero
// time: the plugin's own columns print "-" where kubectl's print <none>.
func ageOr(t metav1.Time, now time.Time, placeholder string) string {
	if t.IsZero() {
		return placeholder
	}
	return duration.HumanDuration(now.Sub(t.Time))
}

// textOr is s, or placeholder when s is empty.
func textOr(s, placeholder string) string {
	if s == "" {
		return placeholder
	}
	return s
}

// conditionMessage is a condition's message as the CRD's column prints it: empty when the
// condition has none, <none> without the condition.
func conditionMessage(tm *omev1beta1.TrafficMap, conditionType string) string {
	c := meta.FindStatusCondition(tm.Status.Conditions, conditionType)
	if c == nil {
		return none
	}
	return c.Message
}

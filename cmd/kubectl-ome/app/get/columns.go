package get

// This file owns the columns of the table and how each cell is worked out from a map. The
// rules are pure: the map and the time now give the cells.

import (
	"slices"
	"strconv"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/trafficmap"
)

// unset is the cell of a text value the map does not carry.
const unset = "-"

// Publisher freshness: whether the publisher's acknowledgement
// (status.observedTrafficMapGeneration) covers the map's current weights.
const (
	// FreshnessCurrent: the publisher has published the generation at which the route
	// last changed, or a later one.
	FreshnessCurrent = "Current"
	// FreshnessStale: the publisher acknowledged a generation before the route's last
	// change (or one the map has not reached).
	FreshnessStale = "Stale"
	// FreshnessUnobserved: the publisher has acknowledged no generation of this map.
	FreshnessUnobserved = "Unobserved"
)

// columns are the table's columns in order; Priority 1 marks the ones -o wide adds.
// NAMESPACE, with -A, is added in front by the printer. OME's columns come first, as OME
// fixes them; the wide columns after them are the TrafficMap's own printer columns, in the
// same order and with the same cells as `kubectl get trafficmap -o wide` (sharedColumns).
var columns = append(slices.Clip(omeColumns), sharedColumns...)

// omeColumns are the columns OME's `kubectl ome get trafficmaps` fixes.
var omeColumns = []metav1.TableColumnDefinition{
	{Name: "NAME", Type: "string", Format: "name"},
	{Name: "MODE", Type: "string"},
	{Name: "TARGETS", Type: "integer"},
	{Name: "ROUTABLE", Type: "string"},
	{Name: "PUBLISHED", Type: "string"},
	{Name: "AGE", Type: "string"},
	{Name: "SERVICE", Type: "string", Priority: 1},
	{Name: "ACTIVE", Type: "integer", Priority: 1},
	{Name: "HEALTHY", Type: "integer", Priority: 1},
	{Name: "OVERRIDE", Type: "string", Priority: 1},
	{Name: "OVERRIDE-REASON", Type: "string", Priority: 1},
	{Name: "REASON", Type: "string", Priority: 1},
	{Name: "GATEWAY", Type: "string", Priority: 1},
	{Name: "PUBLISHER-FRESHNESS", Type: "string", Priority: 1},
}

// cells are one map's cells, in the order of columns.
func cells(tm *omev1beta1.TrafficMap, now time.Time) []string {
	return append(omeCells(tm, now), sharedCells(tm, now)...)
}

// omeCells are the cells of omeColumns.
func omeCells(tm *omev1beta1.TrafficMap, now time.Time) []string {
	routable, routableReason := condition(tm, omev1beta1.TrafficMapRoutable)
	published, _ := condition(tm, omev1beta1.TrafficMapPublished)
	override, overrideReason := condition(tm, omev1beta1.TrafficMapOverrideActive)
	active, healthy := 0, 0
	for _, e := range tm.Spec.Entries {
		if e.Weight > 0 {
			active++
		}
		if e.Healthy {
			healthy++
		}
	}
	return []string{
		tm.Name,
		text(string(tm.Spec.Mode)),
		strconv.Itoa(len(tm.Spec.Entries)),
		routable,
		published,
		age(tm.CreationTimestamp, now),
		text(tm.Spec.Service),
		strconv.Itoa(active),
		strconv.Itoa(healthy),
		override,
		overrideReason,
		routableReason,
		gateway(tm),
		publisherFreshness(tm),
	}
}

// condition is the status and reason of a condition of the map. A condition that is not
// recorded, or was written for a route the map no longer has (trafficmap.ObservedCurrent),
// says nothing about the map now: Unknown, with no reason.
func condition(tm *omev1beta1.TrafficMap, conditionType string) (status, reason string) {
	c := meta.FindStatusCondition(tm.Status.Conditions, conditionType)
	if c == nil || !trafficmap.ObservedCurrent(c.ObservedGeneration, tm) {
		return string(metav1.ConditionUnknown), unset
	}
	return text(string(c.Status)), text(c.Reason)
}

// publisherFreshness compares the publisher's acknowledgement with the map, by the same
// rule as the conditions.
func publisherFreshness(tm *omev1beta1.TrafficMap) string {
	observed := tm.Status.ObservedTrafficMapGeneration
	switch {
	case observed <= 0:
		return FreshnessUnobserved
	case trafficmap.ObservedCurrent(observed, tm):
		return FreshnessCurrent
	}
	return FreshnessStale
}

// gateway is status.gatewayRef as group/kind:namespace/name, the namespace being the map's
// when the reference leaves it out. A core-group kind has no group and no slash before it.
func gateway(tm *omev1beta1.TrafficMap) string {
	ref := tm.Status.GatewayRef
	if ref == nil {
		return unset
	}
	kind := ref.Kind
	if ref.Group != "" {
		kind = ref.Group + "/" + kind
	}
	ns := ref.Namespace
	if ns == "" {
		ns = tm.Namespace
	}
	return kind + ":" + ns + "/" + ref.Name
}

// age is how long ago the map was created, as kubectl prints an AGE.
func age(created metav1.Time, now time.Time) string { return ageOr(created, now, unset) }

func text(s string) string { return textOr(s, unset) }

package trafficmap

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/text"
)

// MaxNoTrafficBytes is the longest status.noTraffic: the CRD's maxLength.
const MaxNoTrafficBytes = 4096

// maxNoTrafficNamed is how many clusters status.noTraffic names one by one.
const maxNoTrafficNamed = 8

// noTrafficSeparator separates the clusters in status.noTraffic. The causes themselves
// contain semicolons and commas, so the separator is neither.
const noTrafficSeparator = " | "

// NoTraffic is the map's status.noTraffic: every cluster the placement selects that takes
// no traffic, sorted by name, as "<cluster> <reason>: <cause>": the entries at weight 0
// (their weightReason and weightMessage, so Explain runs first), the entries with weight
// that the publisher's route leaves out ("<cluster> LeftOutOfRoute: <why>") and the
// excluded clusters.
// It answers "why does this cluster get no traffic?" in one printer column, and is ""
// when every selected cluster takes traffic. It names at most eight clusters, then how
// many more there are, and fits in MaxNoTrafficBytes.
func NoTraffic(entries []omev1beta1.TrafficMapEntry, excluded []omev1beta1.ExcludedCluster, leftOut []omev1beta1.LeftOutCluster) string {
	type item struct{ cluster, text string }
	var items []item
	outOfRoute := map[string]omev1beta1.LeftOutCluster{}
	for _, x := range leftOut {
		outOfRoute[x.Cluster] = x
	}
	for _, e := range entries {
		if x, ok := outOfRoute[e.Cluster]; ok && e.Weight > 0 {
			items = append(items, item{e.Cluster, e.Cluster + " LeftOutOfRoute: " + string(x.Reason) + ": " + x.Message})
			continue
		}
		if e.Weight > 0 || e.Serving == omev1beta1.ServingStateStillServedAtZero {
			// A home held at 0 that the gateway still serves takes traffic: its serving
			// state says so (status.homeStates).
			continue
		}
		text := e.Cluster + " weight 0"
		if e.WeightReason != "" {
			text = e.Cluster + " " + string(e.WeightReason) + ": " + e.WeightMessage
		}
		items = append(items, item{e.Cluster, text})
	}
	for _, x := range excluded {
		items = append(items, item{x.Cluster, x.Cluster + " " + string(x.Reason) + ": " + x.Message})
	}
	if len(items) == 0 {
		return ""
	}
	slices.SortStableFunc(items, func(a, b item) int { return cmp.Compare(a.cluster, b.cluster) })
	parts := make([]string, 0, min(len(items), maxNoTrafficNamed)+1)
	for _, it := range items[:min(len(items), maxNoTrafficNamed)] {
		parts = append(parts, it.text)
	}
	if more := len(items) - maxNoTrafficNamed; more > 0 {
		parts = append(parts, fmt.Sprintf("and %d more: see spec.entries[].weightReason and status.excludedClusters", more))
	}
	return text.Cap(strings.Join(parts, noTrafficSeparator), MaxNoTrafficBytes)
}

// LiftCause says why an entry whose probe gated it before no longer carries a gate, from
// the entry before and after, for the HomeUngated event and the log. probing says whether
// a probe applies to the service now. The endpoint is compared first: a new status.url
// starts the home's probe record over, whatever the policy did.
func LiftCause(before, after omev1beta1.TrafficMapEntry, probing bool) string {
	switch {
	case before.Endpoint != after.Endpoint:
		return "its endpoint (the status.url of its copy) changed, so its probe record starts over"
	case after.Refused != "" && after.Probe == nil:
		return "the operator refuses it now and does not probe it: " + after.Refused
	case !probing:
		return "the probe was turned off"
	case after.Probe == nil || (before.Probe != nil && before.Probe.PolicyDigest != after.Probe.PolicyDigest):
		return "the probe policy changed, so the counts start over"
	default:
		return "it passed successThreshold probes in a row; last probe " + string(after.Probe.Result) + ": " + after.Probe.Message
	}
}

package routing

import (
	"fmt"
	"slices"
	"strings"
	"time"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/placement"
	"github.com/ome-routing/operator/pkg/text"
	"github.com/ome-routing/operator/pkg/trafficmap"
)

// keepUnobserved fails static on the control plane's blindness. The homes that the current
// map holds on members the manager cannot read (g.unobserved: their WorkloadCluster is
// ConnectionFailed) stay, at their last known endpoint and capacity, marked unobserved since
// the map first marked them, else since their Ready condition turned False. Unlike held
// homes they are probed and polled as usual, so that the probe alone decides their traffic
// and a drain applies. Past grace they leave, unless no observed home would take traffic
// (trafficmap.RetainUnobserved); a leaving home's exclusion says why. A home the map does not
// hold, or holds without an endpoint, stays excluded as placement.Unready says.
func (g *gathered) keepUnobserved(current *omev1beta1.TrafficMap, now time.Time, grace time.Duration) {
	if len(g.unobserved) == 0 || current == nil {
		return
	}
	kept, expired, next := trafficmap.RetainUnobserved(append(slices.Clip(g.homes), lastKnown(current, g.unobserved, now)...), now, grace)
	g.homes, g.unobservedUntil = kept, next
	stays := map[string]bool{}
	for _, h := range kept {
		if !h.UnobservedSince.IsZero() {
			stays[h.Cluster] = true
			g.placement.Candidates = append(g.placement.Candidates, omev1beta1.PlacementCandidate{Cluster: h.Cluster,
				Endpoint: h.Endpoint, AdmittedReplicas: h.Allocated, ReadyReplicas: h.Ready})
		}
	}
	g.excluded = slices.DeleteFunc(g.excluded, func(x omev1beta1.ExcludedCluster) bool { return stays[x.Cluster] })
	g.noteLeaving(expired, grace)
	slices.SortFunc(g.placement.Candidates, func(a, b omev1beta1.PlacementCandidate) int { return strings.Compare(a.Cluster, b.Cluster) })
	g.placement.Phase = placement.Phase(addressable(g.homes))
}

// lastKnown are the homes of the unobserved members as the current map holds them: its
// entries' endpoint and capacity, put through a copy's checks again as held homes are
// (recheckHeld). The probe decides the rest, so a refusal of the last probe is not carried
// over.
func lastKnown(current *omev1beta1.TrafficMap, unobserved []placement.Unobserved, now time.Time) []trafficmap.Home {
	last := map[string]omev1beta1.TrafficMapEntry{}
	for _, e := range current.Spec.Entries {
		last[e.Cluster] = e
	}
	var homes []trafficmap.Home
	for _, u := range unobserved {
		e, ok := last[u.Cluster]
		if !ok || e.Endpoint == "" {
			continue
		}
		homes = append(homes, recheckHeld(trafficmap.Home{Cluster: u.Cluster, Endpoint: e.Endpoint,
			Allocated: e.Capacity.Allocated, Ready: e.Capacity.Ready, UnobservedSince: unobservedSince(e, u, now)}, u.Domains))
	}
	return homes
}

// noteLeaving adds to the exclusion of each home that leaves past its grace since when it
// was unobserved. The Ready condition's words stay first, as for any unreachable cluster;
// the note after them is never cut.
func (g *gathered) noteLeaving(expired []trafficmap.Home, grace time.Duration) {
	leaves := map[string]time.Time{}
	for _, h := range expired {
		leaves[h.Cluster] = h.UnobservedSince
	}
	for i, x := range g.excluded {
		if since, ok := leaves[x.Cluster]; ok {
			note := fmt.Sprintf("; not observed since %s, longer than placement.observationGrace (%s), while another home takes traffic",
				since.UTC().Format(time.RFC3339), grace)
			g.excluded[i].Message = text.Cap(x.Message, placement.MaxExclusionMessageBytes-len(note)) + note
		}
	}
}

// unobservedSince is since when a home has not been observed: as the map recorded it, else
// when its member's Ready condition turned False, never later than now. Whole seconds, as
// the API keeps them, so that the next reconcile reads back the same time.
func unobservedSince(e omev1beta1.TrafficMapEntry, u placement.Unobserved, now time.Time) time.Time {
	switch {
	case e.UnobservedSince != nil:
		return e.UnobservedSince.Time
	case !u.Since.IsZero() && u.Since.Before(now):
		return u.Since.Truncate(time.Second)
	}
	return now.Truncate(time.Second)
}

// earliest is the earlier of two times, zero meaning none.
func earliest(a, b time.Time) time.Time {
	if a.IsZero() || (!b.IsZero() && b.Before(a)) {
		return b
	}
	return a
}

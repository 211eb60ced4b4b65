package routing

import (
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/types"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/controllers/probing"
	"github.com/ome-routing/operator/pkg/capacity"
	"github.com/ome-routing/operator/pkg/placement"
	"github.com/ome-routing/operator/pkg/probe"
	"github.com/ome-routing/operator/pkg/trafficmap"
)

// This file owns what the attach phase gives each home before the entries are built: its
// probe record (attachProbes, from the prober), its capacity ceiling (attachCeilings, from
// the poller), and for a member not connected yet, its homes as the map last held them
// (held). The probe records of homes that left the map are kept in an annotation, in
// departed.go; the prober's own memory of them is the prober's.

// attachProbes hands the homes to the prober under the resolved policy and puts each
// home's current probe record on it. Without a probe, homes carry no record.
func (r *Reconciler) attachProbes(key types.NamespacedName, uid types.UID, policy probe.Resolution, homes []trafficmap.Home, current *omev1beta1.TrafficMap) {
	if policy.Mode != probe.ModePolicy {
		r.Prober.Forget(key)
		return
	}
	persisted := map[string]omev1beta1.TrafficMapEntry{}
	if current != nil {
		for _, e := range current.Spec.Entries {
			persisted[e.Cluster] = e
		}
	}
	departed := departedRecords(current, time.Now())
	targets := make([]probing.ProbeTarget, 0, len(homes))
	for _, h := range homes {
		if h.Refused != "" {
			// Outside its cluster's allowed domains: no request goes there.
			continue
		}
		t := probing.ProbeTarget{Cluster: h.Cluster, Endpoint: h.Endpoint}
		// A record made for another endpoint is not this one's. A home back from being
		// away has its record in the annotation, kept there by whichever leader saw it go.
		if e, ok := persisted[h.Cluster]; ok && e.Endpoint == h.Endpoint {
			t.Persisted = e.Probe
		} else if d, ok := departed[h.Cluster]; ok && d.Endpoint == h.Endpoint {
			t.Persisted = d.Probe
		}
		targets = append(targets, t)
	}
	states := r.Prober.Sync(key, uid, policy.Policy, policy.Digest, targets)
	for i := range homes {
		if st, ok := states[homes[i].Cluster]; ok && homes[i].Refused == "" {
			homes[i].Probe = st.RecordFor(policy.Policy)
			// A probe the operator would not send leaves the home without traffic. A Shadow
			// probe leaves every weight as it would be without a probe, so it only records
			// the refusal; the publisher still checks every host it puts in the route.
			if reason, refused := probe.Refusal(homes[i].Probe); refused && !policy.Policy.Shadow() {
				homes[i].Refused = reason
			}
		}
	}
}

// attachCeilings hands the homes to the poller under the resolved capacity poll and puts
// each home's verdict on it. It returns when the earliest reading held expires (zero when
// none does, or the service is not polled). Without a poll, the windows are forgotten.
func (r *Reconciler) attachCeilings(key types.NamespacedName, polls capacity.Resolution, homes []trafficmap.Home) time.Time {
	if !polls.Enabled() {
		r.forgetCapacity(key)
		return time.Time{}
	}
	targets := make([]probing.PollTarget, 0, len(homes))
	for _, h := range homes {
		// A refused home is not polled: its endpoint is outside its cluster's allowed
		// domains, or the observer refused its probe and would refuse the poll alike.
		if h.Refused == "" {
			targets = append(targets, probing.PollTarget{Cluster: h.Cluster, Endpoint: h.Endpoint})
		}
	}
	verdicts, nextExpiry := r.Poller.Sync(key, polls.Policy, polls.Digest, targets)
	for i := range homes {
		if v, ok := verdicts[homes[i].Cluster]; ok {
			homes[i].Ceiling = &v
		}
	}
	return nextExpiry
}

// held are the entries of the current map on members that are Ready but not connected,
// as last written: endpoint, replicas and probe record, gate included. A member that
// cannot be reached (as after a restart, while its API server is down) thus neither
// loses its homes' gates nor holds up the homes on the other members. A held home is not
// probed: the prober picks it up again from its record once the member is connected.
// The held homes are added to the placement too, so that it does not flap.
func (g *gathered) held(current *omev1beta1.TrafficMap) []trafficmap.Home {
	if len(g.pending) == 0 {
		return nil
	}
	var held []trafficmap.Home
	for _, name := range g.pending {
		cand := omev1beta1.PlacementCandidate{Cluster: name}
		kept := false
		if current != nil {
			for _, e := range current.Spec.Entries {
				if e.Cluster != name {
					continue
				}
				home := recheckHeld(trafficmap.Home{Cluster: name, Endpoint: e.Endpoint,
					Allocated: e.Capacity.Allocated, Ready: e.Capacity.Ready, Probe: e.Probe.DeepCopy(), Refused: e.Refused}, g.domains[name])
				held = append(held, home)
				cand.Endpoint, cand.AdmittedReplicas, cand.ReadyReplicas = home.Endpoint, e.Capacity.Allocated, e.Capacity.Ready
				kept = true
			}
		}
		if !kept {
			g.excluded = append(g.excluded, placement.NotConnected(name))
		}
		g.placement.Candidates = append(g.placement.Candidates, cand)
	}
	slices.SortFunc(g.placement.Candidates, func(a, b omev1beta1.PlacementCandidate) int { return strings.Compare(a.Cluster, b.Cluster) })
	g.placement.Phase = placement.Phase(addressable(g.homes) + addressable(held))
	return held
}

// recheckHeld refuses a held home whose endpoint a copy could not have given it: the map
// is an object that others than the routing reconciler may be able to write, so what it
// holds for an unconnected member goes through the same checks as a copy's status.url,
// CheckEndpoint and the member's allowedEndpointDomains, before it is written again.
func recheckHeld(home trafficmap.Home, domains []omev1beta1.EndpointDomain) trafficmap.Home {
	if home.Refused != "" || home.Endpoint == "" {
		return home
	}
	if err := placement.CheckEndpoint(home.Endpoint); err != nil {
		home.Endpoint, home.Refused = "", endpointRefusal(err)
	} else if err := placement.CheckEndpointDomain(home.Endpoint, domains); err != nil {
		home.Refused = err.Error()
	}
	return home
}

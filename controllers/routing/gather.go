package routing

import (
	"context"
	"errors"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/placement"
	"github.com/ome-routing/operator/pkg/trafficmap"
)

// gathered is what the members say about a service: where it is placed and its homes.
type gathered struct {
	placement omev1beta1.PlacementStatus
	homes     []trafficmap.Home
	// pending are the candidates that are Ready but not connected yet (see
	// errMemberPending): their copies are unknown, not absent.
	pending []string
	// refused are the candidates whose copy reports a URL that is not used; see
	// placement.CheckEndpoint.
	refused []refusedEndpoint
	// excluded are the clusters the placement selects that get no entry, with why.
	excluded []omev1beta1.ExcludedCluster
	// domains are each WorkloadCluster's spec.allowedEndpointDomains, which held entries
	// are checked against again.
	domains map[string][]omev1beta1.EndpointDomain
	// labels are each WorkloadCluster's labels, which failover tiers select by.
	labels map[string]map[string]string
	// unobserved are the clusters the placement selects that the manager cannot read, and
	// unobservedUntil the earliest end of a kept home's grace (see keepUnobserved).
	unobserved      []placement.Unobserved
	unobservedUntil time.Time
}

// refusedEndpoint is a candidate left out because of its copy's status.url. The reason
// never quotes the URL.
type refusedEndpoint struct {
	cluster string
	reason  error
}

// gather reads the candidate clusters and each one's copy of the service from the member
// caches.
func (r *Reconciler) gather(ctx context.Context, isvc *omev1beta1.InferenceService) (gathered, error) {
	clusters := &omev1beta1.WorkloadClusterList{}
	if err := r.Client.List(ctx, clusters); err != nil {
		return gathered{}, fmt.Errorf("list WorkloadClusters: %w", err)
	}
	domains := map[string][]omev1beta1.EndpointDomain{}
	labels := map[string]map[string]string{}
	for i := range clusters.Items {
		domains[clusters.Items[i].Name] = clusters.Items[i].Spec.AllowedEndpointDomains
		labels[clusters.Items[i].Name] = clusters.Items[i].Labels
	}
	g := gathered{excluded: placement.Unready(isvc.Spec.Placement, clusters.Items), domains: domains, labels: labels,
		unobserved: placement.Unreadable(isvc.Spec.Placement, clusters.Items)}
	key := client.ObjectKeyFromObject(isvc).String()
	for _, name := range placement.Candidates(isvc.Spec.Placement, clusters.Items) {
		cand := omev1beta1.PlacementCandidate{Cluster: name}
		copy, err := r.memberCopy(ctx, name, client.ObjectKeyFromObject(isvc))
		if errors.Is(err, errMemberPending) {
			g.pending = append(g.pending, name)
			continue
		}
		if err != nil {
			return gathered{}, err
		}
		if placement.Addressable(copy) {
			reps := placement.CopyReplicas(copy)
			if err := placement.CheckEndpoint(copy.Status.URL); err != nil {
				// Neither probed nor written anywhere: the candidate stays, without an
				// endpoint, and its entry has none either, only weight 0 and the reason.
				g.refused = append(g.refused, refusedEndpoint{cluster: name, reason: err})
				g.placement.Candidates = append(g.placement.Candidates, cand)
				g.homes = append(g.homes, trafficmap.Home{Cluster: name, Allocated: reps.Allocated, Ready: reps.Ready,
					Refused: endpointRefusal(err)})
				continue
			}
			cand.Endpoint, cand.AdmittedReplicas, cand.ReadyReplicas = copy.Status.URL, reps.Allocated, reps.Ready
			home := trafficmap.Home{Cluster: name, Endpoint: copy.Status.URL, Allocated: reps.Allocated, Ready: reps.Ready}
			if err := placement.CheckEndpointDomain(copy.Status.URL, domains[name]); err != nil {
				// In the map at weight 0, saying why; neither probed nor polled.
				home.Refused = err.Error()
			}
			g.homes = append(g.homes, home)
		} else {
			g.excluded = append(g.excluded, placement.Exclusion(name, key, copy))
		}
		g.placement.Candidates = append(g.placement.Candidates, cand)
	}
	g.placement.Phase = placement.Phase(addressable(g.homes))
	return g, nil
}

// endpointRefusal is the refused field of a home whose endpoint CheckEndpoint refuses.
func endpointRefusal(err error) string {
	return fmt.Sprintf("the status.url of its copy is refused because %v; fix the copy's status.url", err)
}

// errMemberPending means a candidate cluster is Ready but this process has not connected
// to it yet, as right after a restart. Its copies are unknown, not absent: writing the map
// now would drop its entry, and with it a persisted gate.
var errMemberPending = errors.New("member cluster not connected yet")

// memberCopy is the service's copy on a member, or nil when the member holds none.
func (r *Reconciler) memberCopy(ctx context.Context, cluster string, key client.ObjectKey) (*omev1beta1.InferenceService, error) {
	reader := r.Members.Reader(cluster)
	if reader == nil {
		return nil, fmt.Errorf("%s: %w", cluster, errMemberPending)
	}
	copy := &omev1beta1.InferenceService{}
	if err := reader.Get(ctx, key, copy); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("read copy of %s on %s: %w", key, cluster, err)
	}
	return copy, nil
}

func capacityFactors(isvc *omev1beta1.InferenceService) map[string]omev1beta1.CapacityFactor {
	if isvc.Spec.Routing == nil {
		return nil
	}
	return isvc.Spec.Routing.CapacityFactors
}

// addressable counts the homes with an endpoint: a home whose status.url is refused is in
// the map, at weight 0, but the service is not placed on it for that.
func addressable(homes []trafficmap.Home) int {
	n := 0
	for _, h := range homes {
		if h.Endpoint != "" {
			n++
		}
	}
	return n
}

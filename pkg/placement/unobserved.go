package placement

import (
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

// Unobserved is a cluster the placement selects whose copies the manager cannot read:
// its WorkloadCluster is not Ready because its API server does not answer.
type Unobserved struct {
	Cluster string
	// Since is when its Ready condition turned False, the zero time when unknown.
	Since time.Time
	// Domains are its spec.allowedEndpointDomains.
	Domains []omev1beta1.EndpointDomain
}

// Unreadable are the clusters the placement selects whose Ready condition is False for
// ConnectionFailed, sorted by name. That is the control plane's view of the member (its
// API server, the network to it, its credentials), not the member's data plane: their
// homes may keep serving. Every other reason a cluster is not Ready (its Secret, its
// kubeconfig) is a setting to fix, and leaves it out as Unready says.
func Unreadable(p *omev1beta1.Placement, clusters []omev1beta1.WorkloadCluster) []Unobserved {
	if p == nil {
		return nil
	}
	var out []Unobserved
	for i := range clusters {
		wc := &clusters[i]
		c := meta.FindStatusCondition(wc.Status.Conditions, omev1beta1.WorkloadClusterReady)
		if c == nil || c.Status != metav1.ConditionFalse || c.Reason != string(omev1beta1.WorkloadClusterReasonConnectionFailed) || !selects(p, wc) {
			continue
		}
		out = append(out, Unobserved{Cluster: wc.Name, Since: c.LastTransitionTime.Time, Domains: wc.Spec.AllowedEndpointDomains})
	}
	slices.SortFunc(out, func(a, b Unobserved) int { return strings.Compare(a.Cluster, b.Cluster) })
	return out
}

package placement

import (
	"slices"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

// fieldMetadataName is the only WorkloadCluster field matchFields can select on.
const fieldMetadataName = "metadata.name"

// Candidates returns the names, sorted, of the Ready WorkloadClusters that the placement's
// clusterAffinity selects. A cluster is selected when any term matches it; a term matches
// when all its requirements hold. A placement without terms selects every Ready cluster.
func Candidates(p *omev1beta1.Placement, clusters []omev1beta1.WorkloadCluster) []string {
	if p == nil {
		return nil
	}
	var names []string
	for i := range clusters {
		wc := &clusters[i]
		if IsReady(wc) && selects(p, wc) {
			names = append(names, wc.Name)
		}
	}
	slices.Sort(names)
	return names
}

// selects reports whether the placement's clusterAffinity selects the cluster, Ready or not.
func selects(p *omev1beta1.Placement, wc *omev1beta1.WorkloadCluster) bool {
	return len(p.ClusterAffinity) == 0 || slices.ContainsFunc(p.ClusterAffinity, func(t omev1beta1.ClusterAffinityTerm) bool {
		return termMatches(t, wc)
	})
}

// IsReady reports whether the control plane can reach the cluster now: its Ready
// condition is True for the current generation.
func IsReady(wc *omev1beta1.WorkloadCluster) bool {
	c := meta.FindStatusCondition(wc.Status.Conditions, omev1beta1.WorkloadClusterReady)
	return c != nil && c.Status == metav1.ConditionTrue
}

func termMatches(t omev1beta1.ClusterAffinityTerm, wc *omev1beta1.WorkloadCluster) bool {
	for _, req := range t.MatchFields {
		if !fieldMatches(req, wc) {
			return false
		}
	}
	for k, v := range t.MatchLabels {
		if got, ok := wc.Labels[k]; !ok || got != v {
			return false
		}
	}
	return true
}

func fieldMatches(req omev1beta1.FieldSelectorRequirement, wc *omev1beta1.WorkloadCluster) bool {
	if req.Key != fieldMetadataName {
		// The CRD only admits metadata.name; an unknown key from an older object selects
		// nothing rather than everything.
		return false
	}
	in := slices.Contains(req.Values, wc.Name)
	switch req.Operator {
	case omev1beta1.MatchOperatorIn:
		return in
	case omev1beta1.MatchOperatorNotIn:
		return !in
	default:
		return false
	}
}

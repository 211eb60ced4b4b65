package placement

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/text"
)

// MaxExclusionMessageBytes is the CRD's maxLength for an excluded cluster's message.
const MaxExclusionMessageBytes = 512

// Unready are the clusters the placement selects that are not candidates because their
// WorkloadCluster is not Ready, sorted by name, each with why: ClusterUnreachable when its
// API server does not answer (ConnectionFailed), ClusterNotReady otherwise, with the
// Ready condition's reason and message. They take no traffic and have no entry; the map
// lists them so that a cluster that drops out of it does not simply vanish.
func Unready(p *omev1beta1.Placement, clusters []omev1beta1.WorkloadCluster) []omev1beta1.ExcludedCluster {
	if p == nil {
		return nil
	}
	var out []omev1beta1.ExcludedCluster
	for i := range clusters {
		wc := &clusters[i]
		if IsReady(wc) || !selects(p, wc) {
			continue
		}
		x := omev1beta1.ExcludedCluster{Cluster: wc.Name, Reason: omev1beta1.ExcludedClusterNotReady,
			Message: "the WorkloadCluster has no Ready condition yet"}
		if c := meta.FindStatusCondition(wc.Status.Conditions, omev1beta1.WorkloadClusterReady); c != nil {
			if c.Reason == string(omev1beta1.WorkloadClusterReasonConnectionFailed) {
				x.Reason = omev1beta1.ExcludedClusterUnreachable
			}
			x.Message = fmt.Sprintf("WorkloadCluster Ready is %s (%s): %s", c.Status, c.Reason, c.Message)
		}
		x.Message = text.Cap(x.Message, MaxExclusionMessageBytes)
		out = append(out, x)
	}
	slices.SortFunc(out, func(a, b omev1beta1.ExcludedCluster) int { return strings.Compare(a.Cluster, b.Cluster) })
	return out
}

// Exclusion is a candidate left out of the map for the state of its copy: none, or one
// without a status.url. key names the service ("namespace/name").
func Exclusion(cluster, key string, copy *omev1beta1.InferenceService) omev1beta1.ExcludedCluster {
	if copy == nil {
		return omev1beta1.ExcludedCluster{Cluster: cluster, Reason: omev1beta1.ExcludedNoCopy,
			Message: "the cluster holds no copy of InferenceService " + key}
	}
	return omev1beta1.ExcludedCluster{Cluster: cluster, Reason: omev1beta1.ExcludedNoEndpoint,
		Message: "its copy of InferenceService " + key + " reports no status.url yet"}
}

// NotConnected is a Ready candidate this manager has not connected to yet and of which
// the map holds no entry to keep: its copies are unknown.
func NotConnected(cluster string) omev1beta1.ExcludedCluster {
	return omev1beta1.ExcludedCluster{Cluster: cluster, Reason: omev1beta1.ExcludedMemberNotConnected,
		Message: "the WorkloadCluster is Ready, but the manager has not connected to it yet, so its copies are unknown"}
}

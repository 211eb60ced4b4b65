// Package clusterstatus judges what the control plane recorded of one WorkloadCluster: what
// it connects through, whether its Ready condition still describes it, and what that
// condition says. Every view of a member (`kubectl ome cluster status`, `placement
// explain`) reads this one judgement rather than its own.
package clusterstatus

import (
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

// Sources: what the cluster connects through.
const (
	// SourceKubeConfigSecret: spec.clusterSource.kubeConfig names a Secret.
	SourceKubeConfigSecret = "KubeConfigSecret"
	// SourceClusterProfile: spec.clusterSource.clusterProfileRef names a ClusterProfile.
	SourceClusterProfile = "ClusterProfile"
	// SourceInvalid: the spec names neither or both (an object stored before the CRD's
	// rule), or the manager's current Ready condition says the one it names cannot be used
	// (see sourceReasons).
	SourceInvalid = "Invalid"
)

// Freshness says whether the Ready condition describes the cluster as it is now.
const (
	// Current: written for the cluster's generation.
	Current = "Current"
	// Stale: written for an older generation; the manager has not judged the spec as it is
	// now (it is stopped, behind, or cannot write).
	Stale = "Stale"
	// Unobserved: no Ready condition, or one without a generation: the manager has not
	// judged the cluster at all.
	Unobserved = "Unobserved"
	// Invalid: more than one Ready condition, a status other than True/False/Unknown, or a
	// generation ahead of the object's: the status was not written by the manager as it
	// writes it, and nothing in it is read.
	Invalid = "Invalid"
)

// Ready values besides a current condition's own status.
const (
	Unknown = "Unknown"
	// NotRecorded is the reason of a cluster without a Ready condition.
	NotRecorded = "NotRecorded"
	// OtherReportedReason stands for a reason this project's manager never writes.
	OtherReportedReason = "OtherReportedReason"
)

// KnownReadyReasons are the Ready reasons the manager writes.
var KnownReadyReasons = []omev1beta1.WorkloadClusterConditionReason{omev1beta1.WorkloadClusterReasonReachable,
	omev1beta1.WorkloadClusterReasonProbeFailedRetrying, omev1beta1.WorkloadClusterReasonConnectionFailed,
	omev1beta1.WorkloadClusterReasonSecretNotFound, omev1beta1.WorkloadClusterReasonSecretNamespaceRefused,
	omev1beta1.WorkloadClusterReasonBadKubeConfig, omev1beta1.WorkloadClusterReasonClusterProfileUnsupported,
	omev1beta1.WorkloadClusterReasonClusterProfileNotFound, omev1beta1.WorkloadClusterReasonBadClusterProfile}

// sourceReasons are the Ready reasons that say the named source itself cannot be used,
// so that no retry helps until someone fixes it: the Secret or its key is missing or in a
// refused namespace, the kubeconfig is refused, or the ClusterProfile is missing, refused
// or not read by the installation. ConnectionFailed is not one: the source is fine and the
// member's API server does not answer.
var sourceReasons = []omev1beta1.WorkloadClusterConditionReason{omev1beta1.WorkloadClusterReasonSecretNotFound,
	omev1beta1.WorkloadClusterReasonSecretNamespaceRefused, omev1beta1.WorkloadClusterReasonBadKubeConfig,
	omev1beta1.WorkloadClusterReasonClusterProfileUnsupported, omev1beta1.WorkloadClusterReasonClusterProfileNotFound,
	omev1beta1.WorkloadClusterReasonBadClusterProfile}

// Judgement is what the control plane's record says of one cluster.
type Judgement struct {
	// Source is KubeConfigSecret, ClusterProfile or Invalid.
	Source string
	// SourceRef names what the spec points at: "secret <namespace>/<name>[#key]",
	// "clusterprofile <name>", or "" when it names neither.
	SourceRef string
	// Ready is the Ready condition's status (True, False or Unknown) while Freshness is
	// Current, Unknown otherwise: an old or malformed answer is not repeated as today's.
	Ready string
	// Reason is the condition's reason when the manager writes it, OtherReportedReason
	// when not, NotRecorded without a condition or when Freshness is Invalid.
	Reason string
	// Message is the condition's message (empty when Freshness is Invalid).
	Message   string
	Freshness string
	// Since is when the condition last changed status; zero without one.
	Since metav1.Time
	// ObservedGeneration is the generation the condition was written for (0 without one).
	ObservedGeneration int64
	// Conditions is how many conditions the status holds; Kept how many were read (0 or 1).
	Conditions, Kept int
}

// ReadyConditions is every Ready condition the cluster's status holds: one when the
// status is well formed, none before the manager wrote it, several when something else
// wrote a duplicate (which the judgements read as Invalid).
func ReadyConditions(wc *omev1beta1.WorkloadCluster) []metav1.Condition {
	var ready []metav1.Condition
	for _, c := range wc.Status.Conditions {
		if c.Type == omev1beta1.WorkloadClusterReady {
			ready = append(ready, c)
		}
	}
	return ready
}

// Judge reads one WorkloadCluster's spec and Ready condition.
func Judge(wc *omev1beta1.WorkloadCluster) Judgement {
	j := Judgement{Conditions: len(wc.Status.Conditions), Ready: Unknown, Reason: NotRecorded}
	j.Source, j.SourceRef = source(wc.Spec.ClusterSource)
	ready := ReadyConditions(wc)
	switch {
	case len(ready) == 0:
		j.Freshness = Unobserved
		return j
	case len(ready) > 1:
		j.Freshness = Invalid
		return j
	}
	c := ready[0]
	j.Freshness = Freshness(c, wc.Generation)
	if j.Freshness == Invalid {
		return j
	}
	j.Kept, j.Message, j.Since, j.ObservedGeneration = 1, c.Message, c.LastTransitionTime, c.ObservedGeneration
	j.Reason = OtherReportedReason
	if slices.Contains(KnownReadyReasons, omev1beta1.WorkloadClusterConditionReason(c.Reason)) {
		j.Reason = c.Reason
	}
	if j.Freshness != Current {
		return j
	}
	j.Ready = string(c.Status)
	if c.Status == metav1.ConditionFalse && slices.Contains(sourceReasons, omev1beta1.WorkloadClusterConditionReason(c.Reason)) {
		j.Source = SourceInvalid
	}
	return j
}

// Freshness says whether a Ready condition describes a cluster at generation gen. The
// manager stamps each condition with the generation it judged and rewrites it only when it
// changes, so the condition's age says nothing (a member Reachable for a month has a
// month-old condition); the generation does: a spec the manager has not judged since it
// changed is Stale.
func Freshness(c metav1.Condition, gen int64) string {
	switch {
	case c.Status != metav1.ConditionTrue && c.Status != metav1.ConditionFalse && c.Status != metav1.ConditionUnknown:
		return Invalid
	case c.ObservedGeneration > gen:
		return Invalid
	case c.ObservedGeneration == 0:
		return Unobserved
	case c.ObservedGeneration < gen:
		return Stale
	}
	return Current
}

// source names what spec.clusterSource points at.
func source(src omev1beta1.ClusterSource) (string, string) {
	kube := src.KubeConfig != nil && src.KubeConfig.SecretRef.Name != ""
	profile := src.ClusterProfileRef != nil && src.ClusterProfileRef.Name != ""
	switch {
	case kube && profile:
		return SourceInvalid, ""
	case kube:
		ref := "secret " + src.KubeConfig.SecretRef.Namespace + "/" + src.KubeConfig.SecretRef.Name
		if k := src.KubeConfig.Key; k != "" && k != omev1beta1.DefaultKubeConfigKey {
			ref += "#" + k
		}
		return SourceKubeConfigSecret, ref
	case profile:
		return SourceClusterProfile, "clusterprofile " + src.ClusterProfileRef.Name
	}
	return SourceInvalid, ""
}

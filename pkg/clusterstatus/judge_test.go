package clusterstatus

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

func cluster(gen int64, src omev1beta1.ClusterSource, conds ...metav1.Condition) *omev1beta1.WorkloadCluster {
	return &omev1beta1.WorkloadCluster{ObjectMeta: metav1.ObjectMeta{Name: "worker-a", Generation: gen},
		Spec: omev1beta1.WorkloadClusterSpec{ClusterSource: src}, Status: omev1beta1.WorkloadClusterStatus{Conditions: conds}}
}

func ready(status metav1.ConditionStatus, reason omev1beta1.WorkloadClusterConditionReason, gen int64) metav1.Condition {
	return metav1.Condition{Type: omev1beta1.WorkloadClusterReady, Status: status, Reason: string(reason), Message: "m",
		ObservedGeneration: gen, LastTransitionTime: metav1.NewTime(time.Unix(1_700_000_000, 0))}
}

var (
	secret  = omev1beta1.ClusterSource{KubeConfig: &omev1beta1.KubeConfigSource{SecretRef: omev1beta1.SecretReference{Namespace: "ome", Name: "a"}}}
	keyed   = omev1beta1.ClusterSource{KubeConfig: &omev1beta1.KubeConfigSource{SecretRef: omev1beta1.SecretReference{Namespace: "ome", Name: "a"}, Key: "config"}}
	profile = omev1beta1.ClusterSource{ClusterProfileRef: &omev1beta1.ClusterProfileReference{Name: "p"}}
	both    = omev1beta1.ClusterSource{KubeConfig: secret.KubeConfig, ClusterProfileRef: profile.ClusterProfileRef}
)

func TestJudge(t *testing.T) {
	cases := []struct {
		name                                    string
		wc                                      *omev1beta1.WorkloadCluster
		source, ref, readyStatus, reason, fresh string
		kept                                    int
	}{
		{"reachable and current", cluster(2, secret, ready("True", omev1beta1.WorkloadClusterReasonReachable, 2)),
			SourceKubeConfigSecret, "secret ome/a", "True", "Reachable", Current, 1},
		{"a key other than the default is named", cluster(1, keyed, ready("True", omev1beta1.WorkloadClusterReasonReachable, 1)),
			SourceKubeConfigSecret, "secret ome/a#config", "True", "Reachable", Current, 1},
		{"a connection that fails keeps its source", cluster(1, secret, ready("False", omev1beta1.WorkloadClusterReasonConnectionFailed, 1)),
			SourceKubeConfigSecret, "secret ome/a", "False", "ConnectionFailed", Current, 1},
		{"a missing Secret makes the source Invalid", cluster(1, secret, ready("False", omev1beta1.WorkloadClusterReasonSecretNotFound, 1)),
			SourceInvalid, "secret ome/a", "False", "SecretNotFound", Current, 1},
		{"a refused kubeconfig makes the source Invalid", cluster(1, secret, ready("False", omev1beta1.WorkloadClusterReasonBadKubeConfig, 1)),
			SourceInvalid, "secret ome/a", "False", "BadKubeConfig", Current, 1},
		{"an unread ClusterProfile makes the source Invalid", cluster(1, profile, ready("False", omev1beta1.WorkloadClusterReasonClusterProfileUnsupported, 1)),
			SourceInvalid, "clusterprofile p", "False", "ClusterProfileUnsupported", Current, 1},
		{"a reachable ClusterProfile", cluster(1, profile, ready("True", omev1beta1.WorkloadClusterReasonReachable, 1)),
			SourceClusterProfile, "clusterprofile p", "True", "Reachable", Current, 1},
		{"an old generation is Stale and its status not repeated", cluster(3, secret, ready("True", omev1beta1.WorkloadClusterReasonReachable, 2)),
			SourceKubeConfigSecret, "secret ome/a", "Unknown", "Reachable", Stale, 1},
		{"a stale source refusal does not judge today's source", cluster(3, secret, ready("False", omev1beta1.WorkloadClusterReasonSecretNotFound, 2)),
			SourceKubeConfigSecret, "secret ome/a", "Unknown", "SecretNotFound", Stale, 1},
		{"no condition is Unobserved", cluster(1, secret),
			SourceKubeConfigSecret, "secret ome/a", "Unknown", NotRecorded, Unobserved, 0},
		{"a condition without a generation is Unobserved", cluster(1, secret, ready("True", omev1beta1.WorkloadClusterReasonReachable, 0)),
			SourceKubeConfigSecret, "secret ome/a", "Unknown", "Reachable", Unobserved, 1},
		{"a generation ahead of the object is Invalid", cluster(1, secret, ready("True", omev1beta1.WorkloadClusterReasonReachable, 2)),
			SourceKubeConfigSecret, "secret ome/a", "Unknown", NotRecorded, Invalid, 0},
		{"a status outside the three is Invalid", cluster(1, secret, ready("Maybe", omev1beta1.WorkloadClusterReasonReachable, 1)),
			SourceKubeConfigSecret, "secret ome/a", "Unknown", NotRecorded, Invalid, 0},
		{"two Ready conditions are Invalid", cluster(1, secret, ready("True", omev1beta1.WorkloadClusterReasonReachable, 1), ready("False", omev1beta1.WorkloadClusterReasonConnectionFailed, 1)),
			SourceKubeConfigSecret, "secret ome/a", "Unknown", NotRecorded, Invalid, 0},
		{"a reason the manager never writes", cluster(1, secret, ready("False", "Exploded", 1)),
			SourceKubeConfigSecret, "secret ome/a", "False", OtherReportedReason, Current, 1},
		{"a spec naming both sources is Invalid", cluster(1, both, ready("True", omev1beta1.WorkloadClusterReasonReachable, 1)),
			SourceInvalid, "", "True", "Reachable", Current, 1},
		{"a spec naming neither is Invalid", cluster(1, omev1beta1.ClusterSource{}, ready("False", omev1beta1.WorkloadClusterReasonBadKubeConfig, 1)),
			SourceInvalid, "", "False", "BadKubeConfig", Current, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			j := Judge(c.wc)
			if j.Source != c.source || j.SourceRef != c.ref || j.Ready != c.readyStatus || j.Reason != c.reason || j.Freshness != c.fresh || j.Kept != c.kept {
				t.Fatalf("Judge = source %q ref %q ready %q reason %q freshness %q kept %d; want %q %q %q %q %q %d",
					j.Source, j.SourceRef, j.Ready, j.Reason, j.Freshness, j.Kept, c.source, c.ref, c.readyStatus, c.reason, c.fresh, c.kept)
			}
			if j.Conditions != len(c.wc.Status.Conditions) {
				t.Fatalf("Conditions = %d, want %d", j.Conditions, len(c.wc.Status.Conditions))
			}
			if j.Freshness == Invalid && (j.Message != "" || !j.Since.IsZero()) {
				t.Fatalf("an Invalid condition's message or time was read: %+v", j)
			}
		})
	}
}

func TestObserve(t *testing.T) {
	cases := []struct {
		name            string
		returned, pages int
		more            bool
		failure         string
		want            Observation
	}{
		{"every cluster read", 3, 1, false, "", Observation{State: ObservationComplete}},
		{"no cluster registered", 0, 1, false, "", Observation{State: ObservationEmpty}},
		{"the budget ran out with clusters left", 64, 2, true, "", Observation{State: ObservationPartial, Reason: BudgetExceeded, Truncated: true}},
		{"the second page failed", 32, 1, false, "Timeout", Observation{State: ObservationPartial, Reason: "Timeout", Truncated: true}},
		{"the first page was refused", 0, 0, false, "Forbidden", Observation{State: ObservationUnavailable, Reason: "Forbidden"}},
	}
	for _, c := range cases {
		if got := Observe(c.returned, c.pages, c.more, c.failure); got != c.want {
			t.Errorf("%s: Observe = %+v, want %+v", c.name, got, c.want)
		}
	}
}

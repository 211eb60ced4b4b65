package cluster

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/clusterstatus"
)

var now = time.Date(2026, 12, 5, 12, 0, 0, 0, time.UTC)

func wlc(name string, gen int64, src omev1beta1.ClusterSource, conds ...metav1.Condition) omev1beta1.WorkloadCluster {
	return omev1beta1.WorkloadCluster{ObjectMeta: metav1.ObjectMeta{Name: name, Generation: gen},
		Spec: omev1beta1.WorkloadClusterSpec{ClusterSource: src}, Status: omev1beta1.WorkloadClusterStatus{Conditions: conds}}
}

func secretSource(name string) omev1beta1.ClusterSource {
	return omev1beta1.ClusterSource{KubeConfig: &omev1beta1.KubeConfigSource{SecretRef: omev1beta1.SecretReference{Namespace: "ome", Name: name}}}
}

func readyCond(status metav1.ConditionStatus, reason omev1beta1.WorkloadClusterConditionReason, gen int64, age time.Duration, msg string) metav1.Condition {
	return metav1.Condition{Type: omev1beta1.WorkloadClusterReady, Status: status, Reason: string(reason), Message: msg,
		ObservedGeneration: gen, LastTransitionTime: metav1.NewTime(now.Add(-age))}
}

// fleetOf is the suite of clusters every case of a complete read shows: one of each
// judgement, given out of name order.
func fleetOf() []omev1beta1.WorkloadCluster {
	return []omev1beta1.WorkloadCluster{
		wlc("worker-c", 3, secretSource("worker-c-kubeconfig"), readyCond("True", omev1beta1.WorkloadClusterReasonReachable, 2, time.Hour, "API server at https://127.0.0.1:6443 answered /version")),
		wlc("worker-a", 1, secretSource("worker-a-kubeconfig"), readyCond("True", omev1beta1.WorkloadClusterReasonReachable, 1, 90*time.Second, "API server at https://127.0.0.1:6443 answered /version")),
		wlc("worker-b", 1, secretSource("worker-b-kubeconfig"), readyCond("False", omev1beta1.WorkloadClusterReasonSecretNotFound, 1, 5*time.Minute, "Secret ome/worker-b-kubeconfig not found")),
		wlc("worker-d", 1, omev1beta1.ClusterSource{ClusterProfileRef: &omev1beta1.ClusterProfileReference{Name: "worker-d"}}),
	}
}

func TestReportJudgesEachClusterAndTheRead(t *testing.T) {
	r := buildReport(read{Items: fleetOf(), Pages: 1}, now)
	if r.Kind != "ClusterStatusReport" || r.APIVersion != "cli.ome.io/v1alpha1" {
		t.Fatalf("kind %q apiVersion %q", r.Kind, r.APIVersion)
	}
	if r.Observation != (ObservationView{State: clusterstatus.ObservationComplete, Returned: 4, Pages: 1, Budget: 64}) {
		t.Fatalf("observation %+v", r.Observation)
	}
	want := []struct{ name, source, ready, fresh, reason string }{
		{"worker-a", "KubeConfigSecret", "True", "Current", "Reachable"},
		{"worker-b", "Invalid", "False", "Current", "SecretNotFound"},
		{"worker-c", "KubeConfigSecret", "Unknown", "Stale", "Reachable"},
		{"worker-d", "ClusterProfile", "Unknown", "Unobserved", "NotRecorded"},
	}
	if len(r.Clusters) != len(want) {
		t.Fatalf("%d clusters, want %d", len(r.Clusters), len(want))
	}
	for i, w := range want {
		c := r.Clusters[i]
		if c.Name != w.name || c.Source != w.source || c.Ready != w.ready || c.Freshness != w.fresh || c.Reason != w.reason {
			t.Errorf("cluster %d = %s %s %s %s %s, want %v", i, c.Name, c.Source, c.Ready, c.Freshness, c.Reason, w)
		}
	}
	if r.Summary.Ready != 1 || r.Summary.Freshness["Current"] != 2 || r.Summary.Freshness["Stale"] != 1 || r.Summary.Freshness["Unobserved"] != 1 ||
		r.Summary.Sources["Invalid"] != 1 || r.Summary.Sources["KubeConfigSecret"] != 2 || r.Summary.Sources["ClusterProfile"] != 1 {
		t.Errorf("summary %+v", r.Summary)
	}
}

func TestReportSaysWhatTheReadCouldNotSee(t *testing.T) {
	many := make([]omev1beta1.WorkloadCluster, Budget)
	for i := range many {
		many[i] = wlc(fmt.Sprintf("worker-%02d", i), 1, secretSource("s"))
	}
	cases := []struct {
		name string
		rd   read
		want ObservationView
	}{
		{"nothing registered", read{Pages: 1}, ObservationView{State: "Empty", Pages: 1, Budget: 64}},
		{"refused", read{Failure: Forbidden}, ObservationView{State: "Unavailable", Reason: "Forbidden", Budget: 64}},
		{"the budget ran out", read{Items: many, Pages: 2, More: true},
			ObservationView{State: "Partial", Reason: "PageBudgetExceeded", Returned: 64, Pages: 2, Budget: 64, Truncated: true}},
		{"the second page timed out", read{Items: many[:32], Pages: 1, Failure: "Timeout"},
			ObservationView{State: "Partial", Reason: "Timeout", Returned: 32, Pages: 1, Budget: 64, Truncated: true}},
	}
	for _, c := range cases {
		if got := buildReport(c.rd, now).Observation; got != c.want {
			t.Errorf("%s: observation %+v, want %+v", c.name, got, c.want)
		}
	}
}

func TestTable(t *testing.T) {
	var b bytes.Buffer
	if err := printTable(&b, buildReport(read{Items: fleetOf(), Pages: 1}, now), false); err != nil {
		t.Fatal(err)
	}
	want := `FIELD                VALUE
Observation          Complete
Observation reason
Clusters returned    4
Pages                1
Budget               64
Truncated            false
Ready                1 of 4 (True and Current)
Freshness            Current 2, Stale 1, Unobserved 1, Invalid 0
Sources              KubeConfigSecret 2, ClusterProfile 1, Invalid 1
Hint                 Ready is reachability, not capacity

CLUSTER    SOURCE             READY     FRESHNESS    REASON           SINCE
worker-a   KubeConfigSecret   True      Current      Reachable        90s
worker-b   Invalid            False     Current      SecretNotFound   5m
worker-c   KubeConfigSecret   Unknown   Stale        Reachable        60m
worker-d   ClusterProfile     Unknown   Unobserved   NotRecorded      -
`
	if b.String() != want {
		t.Errorf("table:\n%s\nwant:\n%s", b.String(), want)
	}

	b.Reset()
	if err := printTable(&b, buildReport(read{Items: fleetOf()[2:3], Pages: 1}, now), true); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b.Bytes(), []byte("secret ome/worker-b-kubeconfig   1/1          Secret ome/worker-b-kubeconfig not found\n")) {
		t.Errorf("wide table lacks worker-b's ref, generations and message:\n%s", b.String())
	}
}

func TestTableOfAFailedRead(t *testing.T) {
	var b bytes.Buffer
	if err := printTable(&b, buildReport(read{Failure: Forbidden}, now), false); err != nil {
		t.Fatal(err)
	}
	want := `FIELD                VALUE
Observation          Unavailable
Observation reason   Forbidden
Clusters returned    0
Pages                0
Budget               64
Truncated            false
Ready                0 of 0 (True and Current)
Freshness            Current 0, Stale 0, Unobserved 0, Invalid 0
Sources              KubeConfigSecret 0, ClusterProfile 0, Invalid 0
Hint                 Check with kubectl auth can-i list workloadclusters.ome.io
Hint                 Ready is reachability, not capacity
`
	if b.String() != want {
		t.Errorf("table:\n%s\nwant:\n%s", b.String(), want)
	}

	b.Reset()
	many := make([]omev1beta1.WorkloadCluster, Budget)
	for i := range many {
		many[i] = wlc(fmt.Sprintf("worker-%02d", i), 1, secretSource("s"))
	}
	if err := printTable(&b, buildReport(read{Items: many, Pages: 2, More: true}, now), false); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"Observation          Partial\n", "Observation reason   PageBudgetExceeded\n", "Truncated            true\n",
		"Hint                 " + HintPartial + "\n", "worker-63   KubeConfigSecret"} {
		if !bytes.Contains(b.Bytes(), []byte(line)) {
			t.Errorf("the bounded table lacks %q:\n%s", line, b.String())
		}
	}
}

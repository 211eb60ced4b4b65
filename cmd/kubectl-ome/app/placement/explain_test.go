package placement

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

func wlc(name string, gen int64, ready ...metav1.Condition) omev1beta1.WorkloadCluster {
	return omev1beta1.WorkloadCluster{ObjectMeta: metav1.ObjectMeta{Name: name, Generation: gen},
		Spec: omev1beta1.WorkloadClusterSpec{ClusterSource: omev1beta1.ClusterSource{KubeConfig: &omev1beta1.KubeConfigSource{
			SecretRef: omev1beta1.SecretReference{Name: name, Namespace: "ome"}}}},
		Status: omev1beta1.WorkloadClusterStatus{Conditions: ready}}
}

func readyCond(status, reason string, gen int64) metav1.Condition {
	return metav1.Condition{Type: "Ready", Status: metav1.ConditionStatus(status), Reason: reason, ObservedGeneration: gen}
}

// twoWorkers is a fleet of worker-a (Ready) and worker-c (not selected, unreachable).
func twoWorkers() fleetRead {
	return fleetRead{Pages: 1, Items: []omev1beta1.WorkloadCluster{
		wlc("worker-c", 2, readyCond("False", "ConnectionFailed", 2)),
		wlc("worker-a", 1, readyCond("True", "Reachable", 1)),
	}}
}

// guideProbe is a probe and a poll with every field set.
func configured() *omev1beta1.Routing {
	d := func(s string) *metav1.Duration { v, _ := time.ParseDuration(s); return &metav1.Duration{Duration: v} }
	return &omev1beta1.Routing{
		Enabled: ptr.To(true),
		Probe: &omev1beta1.RoutingProbe{Path: "/health", Method: omev1beta1.ProbeMethodGet, AcceptStatuses: []omev1beta1.HTTPStatus{200, 204},
			GateStatuses: []omev1beta1.HTTPStatus{500, 503}, Period: d("10s"), Timeout: d("2s"), FailureThreshold: ptr.To[int32](3),
			SuccessThreshold: ptr.To[int32](2), AllFailedPolicy: omev1beta1.AllFailedPreserveTraffic},
		Capacity: &omev1beta1.RoutingCapacitySpec{Path: "/capacity", Method: omev1beta1.ProbeMethodGet, Format: "Report", Period: d("10s"),
			Timeout: d("1s"), Samples: ptr.To[int32](3), Quorum: ptr.To[int32](2), MaxAge: d("30s")},
		CapacityFactors: map[string]omev1beta1.CapacityFactor{"worker-a": "1.5", "worker-b": "2"},
		Failover:        &omev1beta1.RoutingFailover{Tiers: []omev1beta1.FailoverTier{{Name: "east", Clusters: []string{"worker-a"}}, {Name: "west", Clusters: []string{"worker-b"}}}},
	}
}

func TestExplainTableAbsent(t *testing.T) {
	r := buildExplain(placed(), drainedAndGated(), nil, twoWorkers(), now)
	want := `FIELD                VALUE
Routing intent       Absent
Routing enablement   Inherited
Install routing      Gate/defaults unobserved
Fleet state          Observed
Fleet reason
Fleet Returned       2
Fleet Admitted       2
Fleet Pages          1
Fleet Complete       true
Fleet Truncated      false
Cluster              worker-a
Selector compat...   True
Reported WLC Ready   True (Current)
Condition inspect    Validated 1/1; truncated=false
Cluster              worker-c
Selector compat...   False
Reported WLC Ready   False (Current)
Condition inspect    Validated 1/1; truncated=false
Hint                 WLC Ready is reachability, not capacity
View                 Bounded cells; use -o json for complete identities
`
	if got := rowsText(explainRows(r, false)); got != want {
		t.Errorf("table:\n%s\nwant:\n%s", got, want)
	}
	wantWide := `Cluster              worker-a
Selector compat...   True
Reported WLC Ready   True (Current)
Condition inspect    Validated 1/1; truncated=false
Reported home        worker-a (Admitted)
Connection source    KubeConfigReferenceNotResolved
Ready reason         Reachable
Cluster              worker-c
Selector compat...   False
Reported WLC Ready   False (Current)
Condition inspect    Validated 1/1; truncated=false
Reported home        NotRecorded
Connection source    KubeConfigReferenceNotResolved
Ready reason         ConnectionFailed
`
	if got := rowsText(explainRows(r, true)); !contains(got, wantWide) {
		t.Errorf("wide:\n%s\nwant within it:\n%s", got, wantWide)
	}
}

func TestExplainConfigured(t *testing.T) {
	isvc := placed()
	isvc.Spec.Routing = configured()
	isvc.Spec.Routing.Publisher = &omev1beta1.RoutingPublisherSpec{Options: map[string]string{"weightScale": "2"}}
	r := buildExplain(isvc, drainedAndGated(), nil, twoWorkers(), now)
	want := `FIELD                VALUE
Routing intent       Declared
Routing enablement   OptIn
Install routing      Gate/defaults unobserved
Capacity factors     Routing (2)
Routing probe        Configured
Capacity poll        Configured
Failover             Configured (2 tiers)
Publisher options    Configured (1)
Probe method         GET
Probe statuses       accept=200,204; gate=500,503
Probe thresholds     failure=3; success=2
Probe timing         period=10s; timeout=2s
All-failed policy    PreserveTraffic
Capacity method      GET
Capacity window      samples=3; quorum=2; maxAge=30s
Capacity timing      period=10s; timeout=1s
Serving homes        0 of 2 home(s) take traffic; 0 weighted; judged 12s ago
Not serving          worker-a HeldOutUnconfirmed Drained | worker-b HeldOutUnconfirmed Gated
Members unseen       1: the control plane cannot read worker-c
Fleet state          Observed
`
	if got := rowsText(explainRows(r, true)); !contains(got, want) {
		t.Errorf("wide:\n%s\nwant within it:\n%s", got, want)
	}
	if got := rowsText(explainRows(r, false)); contains(got, "Probe method") {
		t.Errorf("table has wide rows:\n%s", got)
	}
}

func TestExplainSettingStates(t *testing.T) {
	for name, tc := range map[string]struct {
		routing *omev1beta1.Routing
		want    string
	}{
		"inherited": {&omev1beta1.Routing{}, `Routing intent       Declared
Routing enablement   Inherited
Install routing      Gate/defaults unobserved
Capacity factors     Inherited
Routing probe        Inherited
Capacity poll        Inherited
Failover             Inherited
Publisher options    Inherited (0)
Probe method         -
Probe statuses       -
Probe thresholds     -
Probe timing         -
All-failed policy    -
Capacity method      -
Capacity window      -
Capacity timing      -
`},
		"disabled": {&omev1beta1.Routing{Enabled: ptr.To(false), Probe: &omev1beta1.RoutingProbe{Disabled: true},
			Capacity: &omev1beta1.RoutingCapacitySpec{Disabled: true}, Failover: &omev1beta1.RoutingFailover{Disabled: true}}, `Routing enablement   OptOut
Install routing      Gate/defaults unobserved
Capacity factors     Inherited
Routing probe        Disabled
Capacity poll        Disabled
Failover             Disabled
Publisher options    Inherited (0)
Probe method         -
`},
		"past the CRD's bounds": {&omev1beta1.Routing{Failover: &omev1beta1.RoutingFailover{Tiers: make([]omev1beta1.FailoverTier, maxFailoverTiers+1)}},
			"Routing intent       BudgetExceeded\n"},
	} {
		t.Run(name, func(t *testing.T) {
			isvc := placed()
			isvc.Spec.Routing = tc.routing
			if got := rowsText(explainRows(buildExplain(isvc, drainedAndGated(), nil, twoWorkers(), now), true)); !contains(got, tc.want) {
				t.Errorf("got:\n%s\nwant within it:\n%s", got, tc.want)
			}
		})
	}
}

// A refused setting makes the intent Invalid, with the refusal.
func TestExplainInvalidIntent(t *testing.T) {
	isvc := placed()
	isvc.Spec.Routing = configured()
	tm := drainedAndGated()
	meta.SetStatusCondition(&tm.Status.Conditions, metav1.Condition{Type: "SettingsAccepted", Status: metav1.ConditionFalse,
		Reason: "RoutingPolicyRefused", Message: "resolve probe policy: spec.routing.probe.period (500ms) must be at least routing.observer.minPeriod (1s)", ObservedGeneration: 5})
	got := rowsText(explainRows(buildExplain(isvc, tm, nil, twoWorkers(), now), false))
	want := `FIELD                VALUE
Routing intent       Invalid
Frozen               RoutingPolicyRefused: resolve probe policy:
                     spec.routing.probe.period (500ms) must be at least
                     routing.observer.minPeriod (1s)
Routing enablement   OptIn
`
	if !contains(got, want) {
		t.Errorf("got:\n%s\nwant within it:\n%s", got, want)
	}
}

func TestExplainClusterReadiness(t *testing.T) {
	for name, tc := range map[string]struct {
		cluster omev1beta1.WorkloadCluster
		want    string
	}{
		"no condition": {wlc("worker-a", 1), "Reported WLC Ready   Unknown (Unverifiable)\nCondition inspect    NotRecorded 0/0; truncated=false\n" +
			"Reported home        worker-a (Admitted)\nConnection source    KubeConfigReferenceNotResolved\nReady reason         NotRecorded\n"},
		"future generation": {wlc("worker-a", 1, readyCond("True", "Reachable", 2)), "Reported WLC Ready   Unknown (Invalid)\n"},
		"older generation":  {wlc("worker-a", 3, readyCond("True", "Reachable", 2)), "Reported WLC Ready   Unknown (Stale)\n"},
		"no generation":     {wlc("worker-a", 3, readyCond("True", "Reachable", 0)), "Reported WLC Ready   Unknown (Unverifiable)\n"},
		"retrying":          {wlc("worker-a", 1, readyCond("True", "ProbeFailedRetrying", 1)), "Ready reason         ProbeFailedRetrying\n"},
		"unknown reason":    {wlc("worker-a", 1, readyCond("False", "Exploded", 1)), "Reported WLC Ready   False (Current)\n"},
		"malformed status": {wlc("worker-a", 1, readyCond("Maybe", "Reachable", 1)),
			"Reported WLC Ready   Unknown (Invalid)\nCondition inspect    MalformedPayload 1/1; truncated=false\n"},
		"two Ready conditions": {wlc("worker-a", 1, readyCond("True", "Reachable", 1), readyCond("False", "ConnectionFailed", 1)),
			"Reported WLC Ready   Unknown (Invalid)\nCondition inspect    ConflictingDuplicates 0/2; truncated=false\n"},
		"no secret": {func() omev1beta1.WorkloadCluster {
			w := wlc("worker-a", 1, readyCond("True", "Reachable", 1))
			w.Spec.ClusterSource.KubeConfig.SecretRef.Name = ""
			return w
		}(), "Connection source    Unknown\n"},
		"profile": {func() omev1beta1.WorkloadCluster {
			w := wlc("worker-a", 1, readyCond("False", "ClusterProfileNotFound", 1))
			w.Spec.ClusterSource = omev1beta1.ClusterSource{ClusterProfileRef: &omev1beta1.ClusterProfileReference{Name: "worker-a"}}
			return w
		}(), "Connection source    ClusterProfileReferenceNotResolved\nReady reason         ClusterProfileNotFound\n"},
	} {
		t.Run(name, func(t *testing.T) {
			r := buildExplain(placed(), drainedAndGated(), nil, fleetRead{Pages: 1, Items: []omev1beta1.WorkloadCluster{tc.cluster}}, now)
			if got := rowsText(explainRows(r, true)); !contains(got, tc.want) {
				t.Errorf("got:\n%s\nwant within it:\n%s", got, tc.want)
			}
		})
	}
	r := buildExplain(placed(), drainedAndGated(), nil, fleetRead{Pages: 1, Items: []omev1beta1.WorkloadCluster{wlc("worker-a", 1, readyCond("False", "Exploded", 1))}}, now)
	if got := rowsText(explainRows(r, true)); !contains(got, "Ready reason         OtherReportedReason\n") {
		t.Errorf("unknown reason:\n%s", got)
	}
	isvc := placed()
	isvc.Spec.Placement = nil
	if got := rowsText(explainRows(buildExplain(isvc, nil, nil, twoWorkers(), now), false)); !contains(got, "Selector compat...   Unknown\n") {
		t.Errorf("no placement:\n%s", got)
	}
}

func TestExplainFleetStates(t *testing.T) {
	gr := schema.GroupResource{Group: "ome.io", Resource: "workloadclusters"}
	many := fleetRead{Pages: fleetPages, More: true}
	for i := 0; i < fleetBudget; i++ {
		many.Items = append(many.Items, wlc(fmt.Sprintf("worker-%02d", i), 1, readyCond("True", "Reachable", 1)))
	}
	for name, tc := range map[string]struct {
		read fleetRead
		want string
	}{
		"forbidden": {fleetRead{Err: apierrors.NewForbidden(gr, "", fmt.Errorf("no"))}, `Issue                Fleet: Unavailable (Forbidden)
Fleet state          Unavailable
Fleet reason         Forbidden
Fleet Returned       0
Fleet Admitted       0
Fleet Pages          0
Fleet Complete       false
Fleet Truncated      false
Hint                 WLC Ready is reachability, not capacity
Hint                 Partial fleet: no global eligibility verdict
`},
		"timeout":     {fleetRead{Err: context.DeadlineExceeded}, "Fleet reason         Timeout\n"},
		"no such API": {fleetRead{Err: &meta.NoKindMatchError{GroupKind: schema.GroupKind{Group: "ome.io", Kind: "WorkloadCluster"}}}, "Fleet reason         UnsupportedAPI\n"},
		"second page lost": {fleetRead{Pages: 1, Items: twoWorkers().Items, Err: apierrors.NewTimeoutError("slow", 1)}, `Fleet state          Partial
Fleet reason         Timeout
Fleet Returned       2
Fleet Admitted       2
Fleet Pages          1
Fleet Complete       false
Fleet Truncated      true
`},
		"past the page budget": {many, `Fleet state          Partial
Fleet reason         PageBudgetExceeded
Fleet Returned       64
Fleet Admitted       64
Fleet Pages          2
Fleet Complete       false
Fleet Truncated      true
Clusters             4/64; use -o wide or json
Cluster              worker-00
`},
	} {
		t.Run(name, func(t *testing.T) {
			got := rowsText(explainRows(buildExplain(placed(), drainedAndGated(), nil, tc.read, now), false))
			if !contains(got, tc.want) {
				t.Errorf("got:\n%s\nwant within it:\n%s", got, tc.want)
			}
			if contains(got, "worker-04") {
				t.Errorf("the table lists more than four clusters:\n%s", got)
			}
		})
	}
}

func TestExplainJSON(t *testing.T) {
	isvc := placed()
	isvc.Spec.Routing = configured()
	out, err := json.Marshal(buildExplain(isvc, drainedAndGated(), nil, twoWorkers(), now))
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Content    struct {
			Routing struct {
				ProbeSpec struct {
					Path string `json:"path"`
				} `json:"probeSpec"`
			} `json:"routing"`
			Fleet struct {
				Clusters []struct {
					Name string `json:"name"`
				} `json:"clusters"`
			} `json:"fleet"`
		} `json:"content"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	if got.APIVersion != "cli.ome.io/v1alpha1" || got.Kind != "PlacementExplainReport" || got.Content.Routing.ProbeSpec.Path != "/health" ||
		len(got.Content.Fleet.Clusters) != 2 {
		t.Errorf("json: %s", out)
	}
}

package placement

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/cmd/kubectl-ome/app/util"
)

var now = time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)

const digest = "sha256:1111111111111111111111111111111111111111111111111111111111111111"

func source() *omev1beta1.InferenceService {
	return &omev1beta1.InferenceService{ObjectMeta: metav1.ObjectMeta{Name: "chat", Namespace: "prod", UID: "isvc-uid", Generation: 3,
		Annotations: map[string]string{"ome.io/traffic-drain": `{"maintenance-a":{"cluster":"worker-a","reason":"planned maintenance"}}`}}}
}

// drainedAndGated is a map where worker-a is drained and worker-b is gated, as the operator
// writes it.
func drainedAndGated() *omev1beta1.TrafficMap {
	half := omev1beta1.CapacityFactor("500m")
	probed := metav1.NewTime(now.Add(-12 * time.Second))
	cond := func(t, status, reason, msg string, gen int64) metav1.Condition {
		return metav1.Condition{Type: t, Status: metav1.ConditionStatus(status), Reason: reason, Message: msg, ObservedGeneration: gen}
	}
	return &omev1beta1.TrafficMap{
		ObjectMeta: metav1.ObjectMeta{Name: "chat", Namespace: "prod", Generation: 5,
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "ome.io/v1beta1", Kind: "InferenceService", Name: "chat", UID: "isvc-uid", Controller: ptr.To(true)}}},
		Spec: omev1beta1.TrafficMapSpec{Service: "chat", ObservedISVCGeneration: 3, Entries: []omev1beta1.TrafficMapEntry{
			{Cluster: "worker-a", Endpoint: "https://user:secret@chat.worker-a.example.com:8443/v1/chat?token=x", Weight: 0, Healthy: true,
				Capacity:  omev1beta1.TrafficMapCapacity{Allocated: 2, Ready: 2, Factor: &half, Source: omev1beta1.CapacitySourceControlPlane, Reported: ptr.To[int32](2)},
				Probe:     &omev1beta1.TrafficMapProbe{PolicyDigest: digest, Result: omev1beta1.ProbePassing, Message: "HTTP 200", LastProbeTime: &probed},
				DrainRefs: []string{"maintenance-a"}, WeightReason: omev1beta1.WeightDrained, Serving: omev1beta1.ServingStateHeldOutUnconfirmed,
				WeightMessage: "held at weight 0 by traffic-drain override(s) maintenance-a"},
			{Cluster: "worker-b", Endpoint: "http://chat.worker-b.example.com", Weight: 0, Healthy: false,
				Capacity: omev1beta1.TrafficMapCapacity{Allocated: 1, Ready: 1, Source: omev1beta1.CapacitySourceControlPlane,
					FallbackReason: "capacity endpoint returned HTTP 500"},
				Probe: &omev1beta1.TrafficMapProbe{PolicyDigest: digest, Result: omev1beta1.ProbeFailing, Message: "HTTP 503", Gated: true,
					ConsecutiveFailures: 3, LastProbeTime: &probed},
				WeightReason: omev1beta1.WeightGated, Serving: omev1beta1.ServingStateHeldOutUnconfirmed,
				WeightMessage: "gated by the routing probe after 3 failure(s) in a row; last probe Failing: HTTP 503"},
		}},
		Status: omev1beta1.TrafficMapStatus{ServingHomes: ptr.To[int32](0), VerdictTime: &probed,
			HomeStates: "worker-a HeldOutUnconfirmed Drained | worker-b HeldOutUnconfirmed Gated", ExcludedClusters: []omev1beta1.ExcludedCluster{{Cluster: "worker-c",
				Reason:  omev1beta1.ExcludedClusterUnreachable,
				Message: "WorkloadCluster Ready is False (ConnectionFailed): dial tcp 10.0.0.9:6443: connect: connection refused"}},
			Conditions: []metav1.Condition{
				cond("Routable", "False", "TrafficDrain", "manual traffic-drain overrides set all 2 route arm(s) to zero", 5),
				cond("OverrideActive", "True", "OverridesApplied",
					"1 of 1 traffic-drain annotation override(s) active across 1 route arm(s); inspect spec.entries[].drainRefs", 4),
				cond("SettingsAccepted", "True", "Accepted", "", 5),
			}},
	}
}

func rowsText(rows []util.Row) string {
	var b bytes.Buffer
	if err := util.PrintFixedRows(&b, rows); err != nil {
		panic(err)
	}
	return b.String()
}

func TestEndpointTable(t *testing.T) {
	r := buildReport(source(), drainedAndGated(), nil, now)
	want := `FIELD                VALUE
TrafficMap state     Observed
TrafficMap reason
Routing freshness    Current
Traffic override     True: OverridesApplied (Stale)
Capacity fallback    Unknown: NotRecorded (Unverifiable)
Routable             False: TrafficDrain
Routable freshness   Current:
Published            Unknown: NotRecorded (Unverifiable)
Settings accepted    True: Accepted (Current)
Serving homes        0 of 2 home(s) take traffic; 0 weighted; judged 12s ago
Not serving          worker-a HeldOutUnconfirmed Drained | worker-b
                     HeldOutUnconfirmed Gated
Members unseen       1: the control plane cannot read worker-c
Route home           worker-a
Endpoint origin      https://chat.worker-a.example.com:8443
Final weight         0; healthy=true
Serving state        HeldOutUnconfirmed: held out (Drained): the route holds
                     it at 0; the gateway's counters have not confirmed it
                     yet
Weight reason        Drained: held at weight 0 by traffic-drain override(s)
                     maintenance-a
Recorded probe       Passing: HTTP 200
Probe gate           False (Reported); failures=0
Last probed          12s ago
Route evidence       drains=1; gate=False; fallback=NotRecorded
Drain refs           maintenance-a
Probe policy         sha256:1111111111111111111111111111111111111111111111...
Route home           worker-b
Endpoint origin      http://chat.worker-b.example.com
Final weight         0; healthy=false
Serving state        HeldOutUnconfirmed: held out (Gated): the route holds it
                     at 0; the gateway's counters have not confirmed it yet
Weight reason        Gated: gated by the routing probe after 3 failure(s) in
                     a row; last probe Failing: HTTP 503
Recorded probe       Failing: HTTP 503
Probe gate           True (Reported); failures=3
Last probed          12s ago
Route evidence       drains=0; gate=True; fallback=HTTPError
Drain refs           Validated
Probe policy         sha256:1111111111111111111111111111111111111111111111...
Excluded cluster     worker-c
Exclusion            ClusterUnreachable: WorkloadCluster Ready is False
                     (ConnectionFailed): dial tcp 10.0.0.9:6443: connect:
                     connection refused
Hint                 Recorded probes only; no CLI network probe
View                 Bounded cells; use -o json for complete identities
`
	if got := rowsText(endpointRows(r, false)); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	wide := rowsText(endpointRows(r, true))
	for _, line := range []string{
		"Probe policy         sha256:1111111111111111111111111111111111111111111111...\nCapacity proven...   ControlPlane\nAllocated count      2 (Reported)\nReady count          2 (Reported)\nCapacity factor      500m\nReported count       2 (Reported)\nHome cap fallback    NotRecorded\nRoute home           worker-b",
		"Capacity factor      NotRecorded\nReported count       NotRecorded\nHome cap fallback    HTTPError\nExcluded cluster",
	} {
		if !strings.Contains(wide, line) {
			t.Errorf("wide output lacks %q:\n%s", line, wide)
		}
	}
	if strings.Contains(wide+want, "secret") || strings.Contains(wide, "token") || strings.Contains(wide, "/v1/chat") {
		t.Errorf("endpoint leaked a credential or path:\n%s", wide)
	}
}

func TestEndpointStaleAndMissing(t *testing.T) {
	older := source()
	older.Generation = 4
	stale := rowsText(endpointRows(buildReport(older, drainedAndGated(), nil, now), false))
	for _, line := range []string{"Routing freshness    Stale: generation 4 not observed yet (map built from 3)\n", "Traffic override     True: OverridesApplied (Stale)\n", "Routable freshness   Stale: StaleGeneration\n"} {
		if !strings.Contains(stale, line) {
			t.Errorf("stale output lacks %q:\n%s", line, stale)
		}
	}

	notFound := apierrors.NewNotFound(schema.GroupResource{Group: "ome.io", Resource: "trafficmaps"}, "chat")
	missing := rowsText(endpointRows(buildReport(source(), nil, notFound, now), false))
	want := `FIELD                VALUE
TrafficMap state     Unavailable
TrafficMap reason    NotFound
Routing freshness    Unavailable
Traffic override     Unknown: NotRecorded (Unverifiable)
Capacity fallback    Unknown: NotRecorded (Unverifiable)
Routable             Unknown: NotRecorded
Routable freshness   Unverifiable:
Published            Unknown: NotRecorded (Unverifiable)
Settings accepted    Unknown: NotRecorded (Unverifiable)
Hint                 Recorded probes only; no CLI network probe
View                 Bounded cells; use -o json for complete identities
`
	if missing != want {
		t.Errorf("got:\n%s\nwant:\n%s", missing, want)
	}

	foreign := drainedAndGated()
	foreign.OwnerReferences[0].UID = "other"
	if got := buildReport(source(), foreign, nil, now).Content.TrafficMap; got.State != "Unavailable" || got.Reason != "OwnershipUnbound" {
		t.Errorf("foreign map: %+v", got)
	}
	for err, want := range map[error]string{
		apierrors.NewForbidden(schema.GroupResource{}, "chat", errors.New("no")): "Forbidden",
		fmt.Errorf("wrapped: %w", errors.New("boom")):                            "Unreadable",
	} {
		if got := readReason(err); got != want {
			t.Errorf("readReason(%v) = %s, want %s", err, got, want)
		}
	}
}

func TestEndpointManyHomes(t *testing.T) {
	tm := drainedAndGated()
	for _, c := range []string{"worker-c", "worker-d", "worker-e"} {
		tm.Spec.Entries = append(tm.Spec.Entries, omev1beta1.TrafficMapEntry{Cluster: c, Endpoint: "https://" + c, Weight: 1, Healthy: true})
	}
	narrow := rowsText(endpointRows(buildReport(source(), tm, nil, now), false))
	if !strings.Contains(narrow, "Route homes          4/5; use -o wide or json\n") || strings.Contains(narrow, "worker-e") || !strings.Contains(narrow, "worker-d") {
		t.Errorf("narrow:\n%s", narrow)
	}
	if wide := rowsText(endpointRows(buildReport(source(), tm, nil, now), true)); !strings.Contains(wide, "Route home           worker-e") || strings.Contains(wide, "Route homes") {
		t.Errorf("wide:\n%s", wide)
	}
}

func TestEndpointObjectIsUncut(t *testing.T) {
	var b bytes.Buffer
	if err := util.PrintObject("json", buildReport(source(), drainedAndGated(), nil, now), &b); err != nil {
		t.Fatal(err)
	}
	var got EndpointReport
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if got.Kind != "PlacementEndpointReport" || got.APIVersion != "cli.ome.io/v1alpha1" || got.Warnings == nil || len(got.Warnings) != 0 {
		t.Errorf("header %+v warnings %v", got.TypeMeta, got.Warnings)
	}
	a := got.Content.RouteHomes[0]
	if a.Probe.PolicyDigest != digest || a.EndpointOrigin != "https://chat.worker-a.example.com:8443" || !a.PathPresent || a.Capacity.Factor != "500m" {
		t.Errorf("worker-a: %+v %+v", a, a.Probe)
	}
	if strings.Contains(b.String(), "secret") || strings.Contains(b.String(), "token=") {
		t.Errorf("JSON leaks the endpoint's credentials or query: %s", b.String())
	}
	if c := got.Content.Conditions[2]; c.Type != "Routable" || c.Message != "manual traffic-drain overrides set all 2 route arm(s) to zero" || c.Freshness != "Current" {
		t.Errorf("Routable: %+v", c)
	}
}

func TestOrigin(t *testing.T) {
	tests := []struct {
		in   string
		want string
		path bool
	}{
		{"", "NotRecorded", false},
		{"https://a.example.com", "https://a.example.com", false},
		{"https://a.example.com/", "https://a.example.com", false},
		{"http://10.0.0.1:8080/v1?x=y", "http://10.0.0.1:8080", true},
		{"https://u:p@a.example.com", "https://a.example.com", false},
		{"ftp://a.example.com", "InvalidEndpoint", false},
		{"a.example.com", "InvalidEndpoint", false},
		{"http://%zz", "InvalidEndpoint", false},
	}
	for _, tt := range tests {
		if got, path := origin(tt.in); got != tt.want || path != tt.path {
			t.Errorf("origin(%q) = %q, %v; want %q, %v", tt.in, got, path, tt.want, tt.path)
		}
	}
}

// Freshness follows what the manager last observed of the drains, not the generation
// alone: a drain is an annotation, which does not move the generation.
func TestRoutingFreshnessFollowsDrains(t *testing.T) {
	annotated := func(v string) *omev1beta1.InferenceService {
		isvc := source()
		isvc.Annotations = map[string]string{"ome.io/traffic-drain": v}
		if v == "" {
			isvc.Annotations = nil
		}
		return isvc
	}
	pending := func() *omev1beta1.TrafficMap {
		tm := drainedAndGated()
		tm.Spec.Entries[0].DrainRefs = nil
		tm.Status.Conditions[1].Status, tm.Status.Conditions[1].Reason = "False", "OverridesPending"
		tm.Status.Conditions[1].Message = "1 traffic-drain annotation override(s) pending; no matching routable arm"
		return tm
	}
	const notObserved = "ome.io/traffic-drain change not observed yet"
	cases := []struct {
		name string
		isvc *omev1beta1.InferenceService
		tm   *omev1beta1.TrafficMap
		want string
	}{
		{"the drain the map shows", source(), drainedAndGated(), ""},
		{"a second drain not observed yet", annotated(`{"maintenance-a":{"cluster":"worker-a","reason":"r"},"b":{"cluster":"worker-b","reason":"r"}}`),
			drainedAndGated(), notObserved},
		{"a drain of a cluster the map lacks, not observed yet", annotated(`{"maintenance-a":{"cluster":"worker-a","reason":"r"},"b":{"cluster":"worker-bb","reason":"r"}}`),
			drainedAndGated(), notObserved},
		{"a removed drain not observed yet", annotated(""), drainedAndGated(), notObserved},
		{"a drain of a cluster the map lacks, observed", annotated(`{"maintenance-a":{"cluster":"worker-bb","reason":"r"}}`), pending(), ""},
		{"an annotation that does not parse", annotated(`{"maintenance-a":`), drainedAndGated(),
			"ome.io/traffic-drain does not parse, so the manager keeps the map as it was"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := buildReport(tc.isvc, tc.tm, nil, now).Content
			if c.RoutingStaleReason != tc.want {
				t.Errorf("stale reason %q, want %q", c.RoutingStaleReason, tc.want)
			}
			wantFresh := "Current"
			if tc.want != "" {
				wantFresh = "Stale"
			}
			if c.RoutingFreshness != wantFresh || c.Conditions[2].Freshness != wantFresh {
				t.Errorf("routing %s, Routable %s, want both %s", c.RoutingFreshness, c.Conditions[2].Freshness, wantFresh)
			}
		})
	}
}

// A probe's message is wrapped in the table, never cut, and whole in -o wide.
func TestEndpointProbeMessageIsNotCut(t *testing.T) {
	const msg = `transport error: Get "http://worker-b.demo.test:31234/v1/models": dial tcp 127.0.0.1:31234: connect: connection refused`
	tm := drainedAndGated()
	tm.Spec.Entries[1].Probe.Message = msg
	r := buildReport(source(), tm, nil, now)
	narrow := rowsText(endpointRows(r, false))
	want := "Recorded probe       Failing: transport error: Get\n" +
		`                     "http://worker-b.demo.test:31234/v1/models": dial tcp` + "\n" +
		"                     127.0.0.1:31234: connect: connection refused\n"
	if !strings.Contains(narrow, want) {
		t.Errorf("table lacks\n%s\nit printed:\n%s", want, narrow)
	}
	if wide := rowsText(endpointRows(r, true)); !strings.Contains(wide, "Recorded probe       Failing: "+msg+"\n") {
		t.Errorf("wide lacks the whole message:\n%s", wide)
	}
}

// An entry's warning is a row of its own under the weight reason, only while it is set.
func TestEndpointShowsAnEntryWarning(t *testing.T) {
	const warning = "the probe goes to port 8443 (the port of the copy's status.url), the global route to port 80 (endpoint.backendPort): " +
		"a passing probe does not show that port 80 answers"
	tm := drainedAndGated()
	tm.Spec.Entries[0].Warning = warning
	r := buildReport(source(), tm, nil, now)
	if got := r.Content.RouteHomes[0].Warning; got != warning {
		t.Errorf("report's warning %q, want the entry's", got)
	}
	wide := rowsText(endpointRows(r, true))
	want := "Weight reason        Drained: held at weight 0 by traffic-drain override(s) maintenance-a\n" +
		"Warning              " + warning + "\n" +
		"Recorded probe       Passing: HTTP 200\n"
	if !strings.Contains(wide, want) {
		t.Errorf("wide lacks\n%s\nit printed:\n%s", want, wide)
	}
	if n := strings.Count(wide, "Warning "); n != 1 {
		t.Errorf("%d Warning rows, want 1 (worker-b has none):\n%s", n, wide)
	}
	narrow := rowsText(endpointRows(r, false))
	if !strings.Contains(narrow, "Warning              the probe goes to port 8443") || !strings.Contains(narrow, "port 80 answers\n") {
		t.Errorf("table cuts the warning:\n%s", narrow)
	}
}

package placement

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

// placed is the source service placed on worker-a (admitted, ready) and worker-b (admitting).
func placed() *omev1beta1.InferenceService {
	isvc := source()
	isvc.Spec.Placement = &omev1beta1.Placement{Policy: omev1beta1.PlacementPolicyClusterAffinity, Mode: omev1beta1.PlacementModeAll,
		ClusterAffinity: []omev1beta1.ClusterAffinityTerm{{MatchFields: []omev1beta1.FieldSelectorRequirement{
			{Key: "metadata.name", Operator: omev1beta1.MatchOperatorIn, Values: []string{"worker-a", "worker-b"}}}}}}
	isvc.Status.Placement = &omev1beta1.PlacementStatus{Phase: omev1beta1.PlacementPhasePlaced, Candidates: []omev1beta1.PlacementCandidate{
		{Cluster: "worker-b"},
		{Cluster: "worker-a", Endpoint: "https://chat.worker-a.example.com/v1?token=x", AdmittedReplicas: 2, ReadyReplicas: 2},
	}}
	return isvc
}

func TestStatusTable(t *testing.T) {
	tm := drainedAndGated()
	r := buildStatus(placed(), tm, nil, now)
	want := `FIELD                VALUE
Mode                 All (Declared)
Placement            Placed (reported)
Freshness            Unverifiable
Input source         Structured
Selectors            Valid
Reported cluster
Endpoint origin      NotRecorded
Service origin       NotRecorded
Home inspection      Validated 2/2; truncated=false
Provenance inspect   NotRecorded 0/2; truncated=false
TrafficMap state     Observed
TrafficMap reason
Routing freshness    Current
Serving homes        0 of 2 home(s) take traffic; 0 weighted; judged 12s ago
Not serving          worker-a HeldOutUnconfirmed Drained | worker-b
                     HeldOutUnconfirmed Gated
Members unseen       1: the control plane cannot read worker-c
Reported home        worker-a (Admitted)
Home origin          https://chat.worker-a.example.com
Serving state        HeldOutUnconfirmed (Drained)
Reported home        worker-b (Admitting)
Home origin          NotRecorded
Serving state        HeldOutUnconfirmed (Gated)
Hint                 Placed does not prove replica floor met
View                 Bounded cells; use -o json for complete identities
`
	if got := rowsText(statusRows(r, false)); got != want {
		t.Errorf("table:\n%s\nwant:\n%s", got, want)
	}
	wantWide := `Reported home        worker-a (Admitted)
Home origin          https://chat.worker-a.example.com
Serving state        HeldOutUnconfirmed (Drained)
Admitted replicas    2 (Reported)
Ready replicas       2 (Reported)
Provenance           NotRecorded
Policy inspection    NotRecorded 0/0; truncated=false
Group inspection     NotRecorded 0/0; truncated=false
Reported home        worker-b (Admitting)
Home origin          NotRecorded
Serving state        HeldOutUnconfirmed (Gated)
Admitted replicas    Unknown
Ready replicas       Unknown
`
	if got := rowsText(statusRows(r, true)); !contains(got, wantWide) {
		t.Errorf("wide:\n%s\nwant within it:\n%s", got, wantWide)
	}
}

func TestStatusWithoutPlacement(t *testing.T) {
	isvc := source()
	r := buildStatus(isvc, nil, apierrors.NewNotFound(schema.GroupResource{Group: "ome.io", Resource: "trafficmaps"}, "chat"), now)
	want := `FIELD                VALUE
Mode                 NotRecorded
Placement            NotRecorded
Freshness            Unverifiable
Input source         Structured
Selectors            NotRecorded
Reported cluster
Endpoint origin      NotRecorded
Service origin       NotRecorded
Home inspection      NotRecorded 0/0; truncated=false
Provenance inspect   NotRecorded 0/0; truncated=false
TrafficMap state     Unavailable
TrafficMap reason    NotFound
Routing freshness    Unavailable
Hint                 Placed does not prove replica floor met
View                 Bounded cells; use -o json for complete identities
`
	if got := rowsText(statusRows(r, false)); got != want {
		t.Errorf("table:\n%s\nwant:\n%s", got, want)
	}
}

func TestStatusHeadStates(t *testing.T) {
	for name, tc := range map[string]struct {
		edit func(*omev1beta1.InferenceService)
		row  string
	}{
		"single home is the reported cluster": {func(s *omev1beta1.InferenceService) {
			s.Status.Placement.Candidates = s.Status.Placement.Candidates[1:]
			s.Spec.Placement.Mode = omev1beta1.PlacementModeSingle
		}, "Reported cluster     worker-a\n"},
		"mode left out": {func(s *omev1beta1.InferenceService) { s.Spec.Placement.Mode = "" }, "Mode                 NotRecorded\n"},
		"unknown mode":  {func(s *omev1beta1.InferenceService) { s.Spec.Placement.Mode = "Spread" }, "Mode                 Unknown\n"},
		"pending":       {func(s *omev1beta1.InferenceService) { s.Status.Placement.Phase = omev1beta1.PlacementPhasePending }, "Placement            Pending (reported)\n"},
		"unknown phase": {func(s *omev1beta1.InferenceService) { s.Status.Placement.Phase = "Failed" }, "Placement            Unknown\n"},
		"no requirements": {func(s *omev1beta1.InferenceService) {
			s.Spec.Placement.ClusterAffinity = []omev1beta1.ClusterAffinityTerm{{}}
		}, "Selectors            NoRequirements\n"},
		"invalid selector": {func(s *omev1beta1.InferenceService) {
			s.Spec.Placement.ClusterAffinity[0].MatchFields[0].Key = "metadata.labels"
		}, "Selectors            InvalidSelector\n"},
		"too many terms": {func(s *omev1beta1.InferenceService) {
			s.Spec.Placement.ClusterAffinity = make([]omev1beta1.ClusterAffinityTerm, maxTerms+1)
		}, "Selectors            BudgetExceeded\n"},
		"service url": {func(s *omev1beta1.InferenceService) { s.Status.URL = "ftp://chat.example.com" }, "Endpoint origin      InvalidEndpoint\n"},
		"duplicate home": {func(s *omev1beta1.InferenceService) {
			s.Status.Placement.Candidates = append(s.Status.Placement.Candidates, omev1beta1.PlacementCandidate{Cluster: "worker-a"})
		}, "Home inspection      ConflictingDuplicates 2/3; truncated=false\nProvenance inspect   NotRecorded 0/3; truncated=false\nIssue                Home inspection: ConflictingDuplicates (1)\n"},
		"malformed home": {func(s *omev1beta1.InferenceService) {
			s.Status.Placement.Candidates[0].ReadyReplicas = 3
		}, "Home inspection      MalformedPayload 1/2; truncated=false\n"},
		"bad home address": {func(s *omev1beta1.InferenceService) {
			s.Status.Placement.Candidates[0].Endpoint = "worker-b:80"
		}, "Issue                Home worker-b: InvalidEndpoint\n"},
	} {
		t.Run(name, func(t *testing.T) {
			isvc := placed()
			tc.edit(isvc)
			if got := rowsText(statusRows(buildStatus(isvc, drainedAndGated(), nil, now), false)); !contains(got, tc.row) {
				t.Errorf("got:\n%s\nwant within it:\n%s", got, tc.row)
			}
		})
	}
}

// More than four homes: the table previews four, wide lists them all.
func TestStatusPreview(t *testing.T) {
	isvc := placed()
	isvc.Status.Placement.Candidates = nil
	for i := 6; i >= 1; i-- {
		isvc.Status.Placement.Candidates = append(isvc.Status.Placement.Candidates, omev1beta1.PlacementCandidate{Cluster: fmt.Sprintf("worker-%d", i)})
	}
	r := buildStatus(isvc, drainedAndGated(), nil, now)
	got := rowsText(statusRows(r, false))
	if !contains(got, "Homes                4/6; use -o wide or json\nReported home        worker-1 (Admitting)\n") || contains(got, "worker-5") {
		t.Errorf("table:\n%s", got)
	}
	if got := rowsText(statusRows(r, true)); !contains(got, "worker-6") || contains(got, "Homes ") {
		t.Errorf("wide:\n%s", got)
	}
}

func TestStatusJSON(t *testing.T) {
	out, err := json.Marshal(buildStatus(placed(), drainedAndGated(), nil, now))
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Content    struct {
			Homes []struct {
				Cluster     string `json:"cluster"`
				PathPresent bool   `json:"pathPresent"`
			} `json:"homes"`
			Issues []string `json:"issues"`
		} `json:"content"`
		Warnings []string `json:"warnings"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	if got.APIVersion != "cli.ome.io/v1alpha1" || got.Kind != "PlacementStatusReport" || got.Warnings == nil || got.Content.Issues == nil ||
		len(got.Content.Homes) != 2 || !got.Content.Homes[0].PathPresent || contains(string(out), "token") {
		t.Errorf("json: %s", out)
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

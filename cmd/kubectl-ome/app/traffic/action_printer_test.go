package traffic

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/ome-routing/operator/pkg/drain"
)

func documentedPlan() plan {
	isvc := isvcWith(nil)
	isvc.UID = "2f6c1d9e-4b7a-4c1e-9f3d-8a5b6c7d0e12"
	isvc.ResourceVersion = "1284711"
	return plan{target: targetForTest, isvc: isvc, override: drain.Override{ID: "maintenance-a", Cluster: "worker-a", Reason: "planned maintenance"}, before: 0, after: 1}
}

func TestPrintPreview(t *testing.T) {
	var b bytes.Buffer
	if err := printPreview(&b, actionDrain, "none", documentedPlan()); err != nil {
		t.Fatal(err)
	}
	want := `ALPHA guarded traffic action (not TrafficMap convergence)
FIELD             VALUE
Action            traffic drain
Context           hub
Workload NS       prod
Target            InferenceService/chat
UID               2f6c1d9e-4b7a-4c1e-9f3d-8a5b6c7d0e12
ResourceVersion   1284711
Dry-run           none
Override ID       maintenance-a
Cluster           worker-a
Reason            "planned maintenance"
Override count    0 -> 1
Annotation        ome.io/traffic-drain
Follow-up         kubectl ome traffic status chat -n prod --context=hub
API acceptance is not TrafficMap convergence or data-plane realization.
The exact InferenceService UID/resourceVersion is tested atomically.
Other annotations and traffic-drain override IDs are preserved.
Run the previewed traffic status command to observe controller evidence.
`
	if b.String() != want {
		t.Errorf("preview:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestPrintResultTable(t *testing.T) {
	p := documentedPlan()
	applied := newResult(actionDrain, "none", p)
	applied.accepted, applied.applied = true, true
	server := newResult(actionDrain, "server", p)
	server.accepted = true
	undrain := newResult(actionUndrain, "none", plan{target: p.target, isvc: p.isvc, override: p.override, before: 1, after: 0})
	undrain.accepted, undrain.applied = true, true
	tests := []struct {
		name   string
		r      result
		output string
		want   string
	}{
		{
			name: "drain", r: applied, output: "table",
			want: `FIELD         VALUE
action        traffic drain
target        InferenceService/prod/chat
dry-run       none
accepted      Yes
applied       Yes
override-id   maintenance-a
cluster       worker-a
overrides     0 -> 1
message       API accepted traffic annotation request; not TrafficM...
follow-up     kubectl ome traffic status chat -n prod --context=hub
hint          Use -o json or -o yaml for full values.
`,
		},
		{
			name: "undrain", r: undrain, output: "table",
			want: `FIELD         VALUE
action        traffic undrain
target        InferenceService/prod/chat
dry-run       none
accepted      Yes
applied       Yes
override-id   maintenance-a
cluster       worker-a
overrides     1 -> 0
message       API accepted traffic annotation request; not TrafficM...
follow-up     kubectl ome traffic status chat -n prod --context=hub
hint          Use -o json or -o yaml for full values.
`,
		},
		{
			name: "server dry run, wide", r: server, output: "wide",
			want: `FIELD              VALUE
action             traffic drain
target             InferenceService/prod/chat
uid                2f6c1d9e-4b7a-4c1e-9f3d-8a5b6c7d0e12
resource-version   1284711
dry-run            server
accepted           Yes
applied            No
override-id        maintenance-a
cluster            worker-a
overrides          0 -> 1
message            API dry-run accepted; no changes persisted.
follow-up          kubectl ome traffic status chat -n prod --context=hub
hint               Use -o json or -o yaml for full values.
`,
		},
		{
			name: "client dry run", r: newResult(actionDrain, "client", p), output: "table",
			want: `FIELD         VALUE
action        traffic drain
target        InferenceService/prod/chat
dry-run       client
accepted      No
applied       No
override-id   maintenance-a
cluster       worker-a
overrides     0 -> 1
message       Validated locally; no patch sent. TrafficMap converge...
follow-up     kubectl ome traffic status chat -n prod --context=hub
hint          Use -o json or -o yaml for full values.
`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := printResult(&b, tt.output, tt.r); err != nil {
				t.Fatal(err)
			}
			if b.String() != tt.want {
				t.Errorf("got:\n%s\nwant:\n%s", b.String(), tt.want)
			}
		})
	}
}

func TestPrintResultObject(t *testing.T) {
	r := newResult(actionUndrain, "none", plan{target: targetForTest, isvc: documentedPlan().isvc,
		override: drain.Override{ID: "maintenance-a", Cluster: "worker-a"}, before: 1, after: 0})
	r.accepted, r.applied, r.resourceVersion = true, true, "1284799"
	for _, format := range []string{"json", "yaml"} {
		var b bytes.Buffer
		if err := printResult(&b, format, r); err != nil {
			t.Fatal(err)
		}
		raw := b.Bytes()
		if format == "yaml" {
			var err error
			if raw, err = yaml.YAMLToJSON(raw); err != nil {
				t.Fatal(err)
			}
		}
		var got map[string]any
		if err := json.Unmarshal(raw, &got); err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		if _, err := time.Parse(time.RFC3339, got["collectedAt"].(string)); err != nil {
			t.Errorf("%s: collectedAt: %v", format, err)
		}
		delete(got, "collectedAt")
		want := map[string]any{
			"apiVersion": "cli.ome.io/v1alpha1", "kind": "ActionResult", "action": "traffic undrain",
			"target": map[string]any{"kind": "InferenceService", "namespace": "prod", "name": "chat", "uid": "2f6c1d9e-4b7a-4c1e-9f3d-8a5b6c7d0e12", "resourceVersion": "1284799"},
			"dryRun": "none", "accepted": true, "applied": true,
			"message":  "API accepted traffic annotation request; not TrafficMap convergence.",
			"followUp": "kubectl ome traffic status chat -n prod --context=hub",
			"traffic":  map[string]any{"overrideID": "maintenance-a", "cluster": "worker-a", "overridesBefore": float64(1), "overridesAfter": float64(0)},
		}
		gotJSON, _ := json.Marshal(got)
		wantJSON, _ := json.Marshal(want)
		if string(gotJSON) != string(wantJSON) {
			t.Errorf("%s:\n got %s\nwant %s", format, gotJSON, wantJSON)
		}
		if strings.Contains(b.String(), "...") {
			t.Errorf("%s output is cut: %s", format, b.String())
		}
	}
}

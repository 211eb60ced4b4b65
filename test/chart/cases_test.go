package chart

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ome-routing/operator/pkg/config"
	"github.com/ome-routing/operator/test/probecases"
	"github.com/ome-routing/operator/test/settingcases"
)

// The chart refuses exactly the settings the manager refuses, on the table the manager's
// own tests run (pkg/config): helm never renders settings that crash-loop the new pod,
// nor refuses settings the manager would run with.
func TestChartAgreesWithTheManagerOnSettingCases(t *testing.T) {
	helmBin(t) // skips the test when HELM is unset
	for _, c := range settingcases.Cases {
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			values := installValues(t, c.Config())
			manager := managerRefusal(t, values)
			switch {
			case c.Manager == "" && manager != "":
				t.Fatalf("the manager refuses a case it should accept:\n%s", manager)
			case c.Manager != "" && !strings.Contains(manager, c.Manager+"\n"):
				t.Fatalf("the manager does not refuse with %q; it says:\n%s", c.Manager, manager)
			}
			expectChartVerdict(t, values, manager, c.Schema)
		})
	}
}

// The same for every probe case of the API server's table, as the installation's probe:
// whichever way the manager decides, the chart decides alike.
func TestChartAgreesWithTheManagerOnProbeCases(t *testing.T) {
	helmBin(t) // skips the test when HELM is unset
	for _, c := range probecases.Cases {
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			var probe any
			if err := json.Unmarshal([]byte(c.JSON), &probe); err != nil {
				t.Fatal(err)
			}
			cfg := settingcases.Base()
			cfg["routing"].(map[string]any)["probe"] = probe
			values := installValues(t, cfg)
			expectChartVerdict(t, values, managerRefusal(t, values), "")
		})
	}
}

// expectChartVerdict renders values and checks helm against the manager's refusal ("" for
// none): what the manager accepts renders, and the manager loads what was rendered; what
// it refuses, helm refuses, in the schema's words (schema) or, from the template, with
// the manager's lines. An empty schema accepts either, for tables that do not say which.
func expectChartVerdict(t *testing.T, values, manager, schema string) {
	t.Helper()
	stdout, stderr, err := runHelm(t, templateArgs(t, values)...)
	if manager == "" {
		if err != nil {
			t.Fatalf("helm refuses settings the manager accepts:\n%s", stderr)
		}
		data := parseManifests(t, stdout).multiclusterJSON(t)
		if _, err := config.Parse([]byte(data)); err != nil {
			t.Fatalf("the manager refuses what the chart rendered: %v\n%s", err, data)
		}
		return
	}
	if err == nil {
		t.Fatalf("helm renders settings the manager refuses with:\n%s", manager)
	}
	switch {
	case strings.Contains(stderr, schemaErrorHeader):
		if !strings.Contains(stderr, schema) {
			t.Fatalf("the schema's refusal does not say %q:\n%s", schema, stderr)
		}
	case schema != "":
		t.Fatalf("want the schema to refuse, saying %q; helm says:\n%s", schema, stderr)
	case !strings.Contains(stderr, refusalHeader+manager):
		t.Fatalf("helm's error does not carry the manager's lines\n%s\nit printed:\n%s", manager, stderr)
	}
}

// installValues are values that install cfg as the control plane's settings.
func installValues(t *testing.T, cfg map[string]any) string {
	t.Helper()
	data, err := json.Marshal(map[string]any{"ome": map[string]any{"multicluster": map[string]any{
		"enabled": true, "role": "control-plane", "config": cfg,
	}}})
	if err != nil {
		t.Fatal(err)
	}
	return string(data) // JSON is YAML
}

// The schema holds durations to the manager's grammar and integers to its bound.
func TestSchemaHasTheManagersGrammar(t *testing.T) {
	var schema struct {
		Defs map[string]struct {
			Pattern   string `json:"pattern"`
			MaxLength int    `json:"maxLength"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal([]byte(mustReadFile(t, chartDir(t)+"/values.schema.json")), &schema); err != nil {
		t.Fatal(err)
	}
	for _, def := range []string{"duration", "nonNegativeDuration"} {
		d := schema.Defs[def]
		if d.Pattern != config.DurationPattern || d.MaxLength != config.MaxDurationLength {
			t.Errorf("$defs.%s: pattern %q, maxLength %d; the manager's grammar is %q, at most %d characters",
				def, d.Pattern, d.MaxLength, config.DurationPattern, config.MaxDurationLength)
		}
	}
}

package chart

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/ome-routing/operator/pkg/config"
)

// refusalHeader starts the chart's refusal of settings the manager would refuse.
const refusalHeader = "the manager would refuse ome.multicluster.config and crash-loop:\n"

// capacityValues is routing on with the capacity poll of values.yaml's comment; cases
// edit it.
var capacityValues = routingValues(`capacity: {path: /capacity, method: GET, format: Report, samples: 10, quorum: 2,
          period: 10s, timeout: 3s, maxAge: 30s}`)

// For each rule the manager holds its settings to that the schema cannot state, helm
// refuses the values before anything is deployed, with the manager's own words: every line
// the manager's loader (pkg/config) gives for the same settings, in its order. Without the
// chart's check, helm renders these and the new pod crash-loops.
func TestChartRefusesWhatTheManagerRefuses(t *testing.T) {
	helmBin(t) // skips the test when HELM is unset
	cases := []struct {
		name, values string
		flags        []string
		want         string
	}{{
		name:   "probe timeout not shorter than its period",
		values: edit(t, step1Values, "timeout: 3s", "timeout: 10s"),
		want:   "routing.probe.timeout (10s) must be shorter than routing.probe.period (10s)",
	}, {
		name:   "the same durations written differently",
		values: edit(t, edit(t, step1Values, "period: 10s", "period: 1m30s"), "timeout: 3s", "timeout: 90000ms"),
		want:   "routing.probe.timeout (1m30s) must be shorter than routing.probe.period (1m30s)",
	}, {
		name:   "probe period under minPeriod, in fractions",
		values: edit(t, edit(t, step1Values, "period: 10s", "period: 0.5s"), "timeout: 3s", "timeout: 100ms"),
		want:   "routing.probe.period (500ms) must be at least routing.observer.minPeriod (1s)",
	}, {
		name:   "probe period over maxPeriod",
		values: edit(t, step1Values, "period: 10s", "period: 1.5h"),
		want:   "routing.probe.period (1h30m0s) must be at most routing.observer.maxPeriod (5m0s)",
	}, {
		name:   "probe timeout over maxTimeout",
		values: edit(t, edit(t, step1Values, "period: 10s", "period: 2m"), "timeout: 3s", "timeout: 59s"),
		want:   "routing.probe.timeout (59s) must be at most routing.observer.maxTimeout (30s)",
	}, {
		name:   "gate on 401",
		values: edit(t, step1Values, "[404, 500", "[401, 500"),
		want:   "routing.probe.gateStatuses must not contain 401",
	}, {
		name:   "gate on 403, twice",
		values: edit(t, step1Values, "[404, 500", "[403, 500, 403"),
		want:   "routing.probe.gateStatuses must not contain 403",
	}, {
		name:   "gate on 429, set with --set",
		values: step1Values,
		flags:  []string{"--set", "ome.multicluster.config.routing.probe.gateStatuses={500,429}"},
		want:   "routing.probe.gateStatuses must not contain 429",
	}, {
		name:   "a status in both lists",
		values: edit(t, step1Values, "[404, 500", "[200, 500"),
		want:   "routing.probe: status 200 is in both acceptStatuses and gateStatuses",
	}, {
		name:   "the probe is checked with routing off",
		values: edit(t, edit(t, step1Values, "      routing:\n        enabled: true", "      routing:\n        enabled: false"), "[404, 500", "[403, 500"),
		want:   "routing.probe.gateStatuses must not contain 403",
	}, {
		name:   "observer minPeriod over maxPeriod",
		values: routingValues("observer: {minPeriod: 10m}"),
		want:   "routing.observer.minPeriod (10m0s) must not be over routing.observer.maxPeriod (5m0s)",
	}, {
		name:   "capacity timeout not shorter than its period",
		values: edit(t, capacityValues, "timeout: 3s", "timeout: 10s"),
		want:   "routing.capacity.timeout (10s) must be shorter than routing.capacity.period (10s)",
	}, {
		name:   "capacity quorum over samples",
		values: edit(t, capacityValues, "quorum: 2", "quorum: 3"),
		flags:  []string{"--set", "ome.multicluster.config.routing.capacity.samples=2"},
		want:   "routing.capacity.quorum (3) must not exceed routing.capacity.samples (2)",
	}, {
		name:   "capacity maxAge under its period",
		values: edit(t, capacityValues, "maxAge: 30s", "maxAge: 5s"),
		want:   "routing.capacity.maxAge (5s) must be at least routing.capacity.period (10s)",
	}, {
		name:   "capacity maxAge shorter than quorum periods",
		values: edit(t, capacityValues, "maxAge: 30s", "maxAge: 15s"),
		want:   "routing.capacity.maxAge (15s) must span at least quorum (2) routing.capacity.period intervals",
	}, {
		name:   "options for the Report format",
		values: edit(t, capacityValues, "maxAge: 30s}", "maxAge: 30s, options: {window: 1m, unit: replicas}}"),
		want:   `routing.capacity.options: format "Report" takes no options, got [unit window]`,
	}, {
		name:   "capacity period under minPeriod",
		values: edit(t, edit(t, capacityValues, "period: 10s", "period: 800ms"), "timeout: 3s", "timeout: 300ms"),
		want:   "routing.capacity.period (800ms) must be at least routing.observer.minPeriod (1s)",
	}, {
		name:   "capacity samples over maxSamples",
		values: edit(t, capacityValues, "samples: 10", "samples: 11"),
		want:   "routing.capacity.samples (11) must not exceed routing.observer.maxSamples (10)",
	}, {
		name:   "a Gateway without a port",
		values: edit(t, publishValues, "        backendPort: 80\n", ""),
		want:   `endpoint.backendPort: must be set when endpoint.globalGateway is configured ("gateway-system/global")`,
	}, {
		name:   "rewriteHostname without a Gateway",
		values: edit(t, publishValues, "        globalGateway: gateway-system/global\n", ""),
		want:   "endpoint.globalGateway: must be set when gateway backend features are enabled",
	}, {
		name:   "annotated hostnames under the namespace without a template",
		values: edit(t, publishValues, `        globalHostTemplate: "{{ .Name }}.{{ .Namespace }}.global.example.com"`, "        globalHostAnnotation: UnderNamespace"),
		want:   `endpoint.globalHostAnnotation: "UnderNamespace" needs endpoint.globalHostTemplate, which gives each namespace its suffix`,
	}, {
		name: "every problem at once, in the manager's order",
		values: edit(t, edit(t, edit(t, step1Values, "[404, 500", "[200, 403, 500"), "timeout: 3s", "timeout: 40s"),
			"period: 10s", "period: 20s"),
		want: "routing.probe: status 200 is in both acceptStatuses and gateStatuses",
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			manager := managerRefusal(t, tc.values, tc.flags...)
			if !strings.Contains(manager, "invalid multi-cluster configuration: "+tc.want+"\n") {
				t.Fatalf("the manager does not refuse these values with %q; it says:\n%s", tc.want, manager)
			}
			stderr := renderError(t, tc.values, tc.flags...)
			if !strings.Contains(stderr, refusalHeader+manager) {
				t.Errorf("helm's error does not carry the manager's lines\n%s\nit printed:\n%s", manager, stderr)
			}
		})
	}
}

// Values that the manager accepts render: the chart's check is no stricter than the
// manager. A capacity poll is checked only with routing on, as the manager does.
func TestChartAcceptsWhatTheManagerAccepts(t *testing.T) {
	helmBin(t) // skips the test when HELM is unset
	for name, values := range map[string]string{
		"timeout just under the period": edit(t, step1Values, "timeout: 3s", "timeout: 9.999s"),
		"period at minPeriod and at maxPeriod": edit(t, edit(t, step1Values, "period: 10s", "period: 1s"), "timeout: 3s", "timeout: 500ms") +
			"        observer: {maxPeriod: 1s}\n",
		"a bad capacity poll with routing off": edit(t, edit(t, capacityValues, "timeout: 3s", "timeout: 10s"), "enabled: true\n        capacity", "enabled: false\n        capacity"),
		"quorum of one":                        edit(t, edit(t, capacityValues, "quorum: 2", "quorum: 1"), "maxAge: 30s", "maxAge: 10s"),
		"gate on 404 only":                     edit(t, step1Values, "[404, 500, 502, 503, 504]", "[404]"),
	} {
		t.Run(name, func(t *testing.T) {
			data := render(t, values).multiclusterJSON(t)
			if _, err := config.Parse([]byte(data)); err != nil {
				t.Errorf("the manager refuses what the chart rendered: %v\n%s", err, data)
			}
		})
	}
}

// managerRefusal is what the manager's loader says about the settings these values give:
// the chart's defaults under ome.multicluster.config with the values merged over them, as
// helm merges them, then JSON. It is "" when the manager accepts them.
func managerRefusal(t *testing.T, values string, flags ...string) string {
	t.Helper()
	merged := configOf(t, mustReadFile(t, filepath.Join(chartDir(t), "values.yaml")))
	merged = mergeValues(merged, configOf(t, values))
	for i := 0; i+1 < len(flags); i += 2 {
		if flags[i] != "--set" {
			t.Fatalf("managerRefusal understands only --set, got %s", flags[i])
		}
		merged = mergeValues(merged, setValue(t, flags[i+1]))
	}
	data, err := json.Marshal(merged)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := config.Parse(data); err != nil {
		return err.Error() + "\n"
	}
	return ""
}

// configOf is the ome.multicluster.config block of a values file, or nil.
func configOf(t *testing.T, values string) map[string]any {
	t.Helper()
	var v struct {
		Ome struct {
			Multicluster struct {
				Config map[string]any `json:"config"`
			} `json:"multicluster"`
		} `json:"ome"`
	}
	if err := yaml.Unmarshal([]byte(values), &v); err != nil {
		t.Fatalf("values: %v", err)
	}
	return v.Ome.Multicluster.Config
}

// setValue turns one --set under ome.multicluster.config (a key path and a number or a
// {list} of numbers, all these tests need) into the block it sets.
func setValue(t *testing.T, set string) map[string]any {
	t.Helper()
	path, value, ok := strings.Cut(set, "=")
	rest, under := strings.CutPrefix(path, "ome.multicluster.config.")
	if !ok || !under {
		t.Fatalf("setValue: %q is not under ome.multicluster.config", set)
	}
	var v any
	if list, isList := strings.CutPrefix(value, "{"); isList {
		value = "[" + strings.TrimSuffix(list, "}") + "]"
	}
	if err := json.Unmarshal([]byte(value), &v); err != nil {
		t.Fatalf("setValue %q: %v", set, err)
	}
	keys := strings.Split(rest, ".")
	for i := len(keys) - 1; i >= 0; i-- {
		v = map[string]any{keys[i]: v}
	}
	return v.(map[string]any)
}

// mergeValues merges over onto base as helm does: maps merge key by key, anything else
// replaces, and null removes the key.
func mergeValues(base, over map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range base {
		out[k] = v
	}
	for k, v := range over {
		switch ov := v.(type) {
		case nil:
			delete(out, k)
		case map[string]any:
			if bv, ok := out[k].(map[string]any); ok {
				out[k] = mergeValues(bv, ov)
			} else {
				out[k] = ov
			}
		default:
			out[k] = v
		}
	}
	return out
}

func mustReadFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

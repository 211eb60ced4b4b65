package chart

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/config"
	"github.com/ome-routing/operator/test/failovercases"
	"github.com/ome-routing/operator/test/settingcases"
)

// failoverExample is the example in values.yaml's comment, uncommented.
const failoverExample = `failover:
          tiers:
            - name: onprem
              clusters: [gpu-a, gpu-b]
            - name: cloud
              clusterSelector:
                matchLabels: {topology.kubernetes.io/region: us-east-1}
          overprovisioningPercent: 140`

// The example renders into the manager's config as the tiers it shows, and the manager
// loads them; left out, there are none.
func TestRenderedFailoverLoads(t *testing.T) {
	helmBin(t) // skips the test when HELM is unset
	pct := int32(140)
	cases := []struct {
		name, values string
		want         *v1beta1.RoutingFailover
	}{
		{name: "values.yaml's example", values: routingValues(failoverExample), want: &v1beta1.RoutingFailover{
			Tiers: []v1beta1.FailoverTier{
				{Name: "onprem", Clusters: []string{"gpu-a", "gpu-b"}},
				{Name: "cloud", ClusterSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"topology.kubernetes.io/region": "us-east-1"}}},
			},
			OverprovisioningPercent: &pct,
		}},
		{name: "left out", values: routingValues("probe: []")},
		{name: "null", values: routingValues("failover: null")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			data := render(t, tc.values).multiclusterJSON(t)
			got, err := config.Parse([]byte(data))
			if err != nil {
				t.Fatalf("config.Parse of the rendered %s key: %v\n%s", configKey, err, data)
			}
			if !reflect.DeepEqual(got.Routing.Failover, tc.want) {
				t.Errorf("Failover = %+v, want %+v\nJSON: %s", got.Routing.Failover, tc.want, data)
			}
		})
	}
}

// Every case of the API server's failover table, as the installation's setting: whichever
// way the manager decides, the chart decides alike (its schema, or its template with the
// manager's lines for a name or a cluster used twice).
func TestChartAgreesWithTheManagerOnFailoverCases(t *testing.T) {
	helmBin(t) // skips the test when HELM is unset
	for _, c := range failovercases.Cases {
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			var block any
			if err := json.Unmarshal([]byte(c.JSON), &block); err != nil {
				t.Fatal(err)
			}
			cfg := settingcases.Base()
			cfg["routing"].(map[string]any)["failover"] = block
			values := installValues(t, cfg)
			expectChartVerdict(t, values, managerRefusal(t, values), "")
		})
	}
}

// The template names each name and cluster used twice once, in the manager's order and
// words; several at once show that both walk the tiers alike.
func TestChartNamesEveryRepeatLikeTheManager(t *testing.T) {
	helmBin(t) // skips the test when HELM is unset
	values := routingValues(`failover:
          tiers:
            - {name: a, clusters: [c1, c2, c1]}
            - {name: b, clusters: [c2, c3]}
            - {name: a, clusters: [c3, c1, c4]}
            - {name: a, clusters: [c4]}`)
	manager := managerRefusal(t, values)
	for _, line := range []string{
		"routing.failover: cluster c2 is in more than one tier",
		"routing.failover: tier names must be unique (a is used more than once)",
		"routing.failover: cluster c3 is in more than one tier",
		"routing.failover: cluster c1 is in more than one tier",
		"routing.failover: cluster c4 is in more than one tier",
	} {
		if !strings.Contains(manager, line+"\n") {
			t.Errorf("the manager does not say %q; it says:\n%s", line, manager)
		}
	}
	if stderr := renderError(t, values); !strings.Contains(stderr, refusalHeader+manager) {
		t.Errorf("helm's template does not print the manager's lines\n%s\nit printed:\n%s", manager, stderr)
	}
}

// The schema refuses a tier's own faults before anything is deployed, naming the field.
func TestSchemaRejectsBadFailover(t *testing.T) {
	helmBin(t) // skips the test when HELM is unset
	const at = "- at '/ome/multicluster/config/routing/failover"
	cases := []struct{ name, line, want string }{
		{"disabled, which only a service sets", "failover: {disabled: true}",
			"  " + at + "': additional properties 'disabled' not allowed"},
		{"no tiers", "failover: {overprovisioningPercent: 140}",
			at + "': missing property 'tiers'"},
		{"nine tiers", "failover: {tiers: [" + strings.Repeat("{name: t, clusters: [a]}, ", 8) + "{name: t, clusters: [a]}]}",
			at + "/tiers': maxItems: got 9, want 8"},
		{"the reserved name", "failover: {tiers: [{name: unlisted, clusters: [a]}]}",
			at + "/tiers/0/name': 'not' failed"},
		{"a factor under 100", "failover: {tiers: [{name: a, clusters: [x]}], overprovisioningPercent: 99}",
			at + "/overprovisioningPercent': minimum: got 99, want 100"},
		{"a bad operator", "failover: {tiers: [{name: a, clusterSelector: {matchExpressions: [{key: zone, operator: Near, values: [z1]}]}}]}",
			"  " + at + "/tiers/0/clusterSelector/matchExpressions/0/operator': value must be one of 'In', 'NotIn', 'Exists', 'DoesNotExist'"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			expectSchemaRefusal(t, routingValues(tc.line), tc.want)
		})
	}
}

// The schema's label-selector syntax is the manager's (metav1.LabelSelectorAsSelector):
// keys with and without a prefix, values, and the operators' rules on values.
func TestChartAgreesWithTheManagerOnSelectors(t *testing.T) {
	helmBin(t) // skips the test when HELM is unset
	long := strings.Repeat("a", 63)
	cases := map[string]string{
		"a prefixed key":                 `{"matchLabels": {"topology.kubernetes.io/region": "us-east-1"}}`,
		"a key of 63 characters":         `{"matchLabels": {"` + long + `": "v"}}`,
		"a key of 64 characters":         `{"matchLabels": {"` + long + `a": "v"}}`,
		"an upper-case prefix":           `{"matchLabels": {"Topology.io/region": "v"}}`,
		"an empty key":                   `{"matchLabels": {"": "v"}}`,
		"a key ending in a dot":          `{"matchLabels": {"zone.": "v"}}`,
		"an empty value":                 `{"matchLabels": {"zone": ""}}`,
		"a value of 63 characters":       `{"matchLabels": {"zone": "` + long + `"}}`,
		"a value of 64 characters":       `{"matchLabels": {"zone": "` + long + `a"}}`,
		"a value starting with a dash":   `{"matchLabels": {"zone": "-z1"}}`,
		"In with values":                 `{"matchExpressions": [{"key": "zone", "operator": "In", "values": ["z1"]}]}`,
		"In without values":              `{"matchExpressions": [{"key": "zone", "operator": "In"}]}`,
		"NotIn with no value":            `{"matchExpressions": [{"key": "zone", "operator": "NotIn", "values": []}]}`,
		"Exists":                         `{"matchExpressions": [{"key": "zone", "operator": "Exists"}]}`,
		"Exists with a value":            `{"matchExpressions": [{"key": "zone", "operator": "Exists", "values": ["z1"]}]}`,
		"DoesNotExist with no value":     `{"matchExpressions": [{"key": "zone", "operator": "DoesNotExist", "values": []}]}`,
		"an expression with a bad value": `{"matchExpressions": [{"key": "zone", "operator": "In", "values": ["z 1"]}]}`,
		"an expression without a key":    `{"matchExpressions": [{"operator": "Exists"}]}`,
	}
	for name, selector := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var s any
			if err := json.Unmarshal([]byte(selector), &s); err != nil {
				t.Fatal(err)
			}
			cfg := settingcases.Base()
			cfg["routing"].(map[string]any)["failover"] = map[string]any{
				"tiers": []any{map[string]any{"name": "a", "clusterSelector": s}},
			}
			values := installValues(t, cfg)
			expectChartVerdict(t, values, managerRefusal(t, values), "")
		})
	}
}

package config

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/failover"
	"github.com/ome-routing/operator/test/failovercases"
)

// withFailover renders a document with routing on, the chart's observer and the given
// failover block.
func withFailover(block any) string {
	return routing(obj{"enabled": true, "observer": chartObserver(), "failover": block})
}

// regionTiers are two tiers by name and by region, with a factor.
func regionTiers() obj {
	return obj{"tiers": []obj{
		{"name": "onprem", "clusters": []string{"a", "b"}},
		{"name": "east", "clusterSelector": obj{"matchLabels": obj{"topology.kubernetes.io/region": "us-east-1"}}},
	}, "overprovisioningPercent": 120}
}

func regionTiersSetting() *omev1beta1.RoutingFailover {
	return &omev1beta1.RoutingFailover{
		Tiers: []omev1beta1.FailoverTier{
			{Name: "onprem", Clusters: []string{"a", "b"}},
			{Name: "east", ClusterSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"topology.kubernetes.io/region": "us-east-1"}}},
		},
		OverprovisioningPercent: new(int32(120)),
	}
}

var failoverAccepted = []parseCase{
	{name: "failover: two tiers by name and region",
		json: withFailover(regionTiers()),
		want: &Config{Routing: Routing{Enabled: true, Observer: chartObserverConfig(), Failover: regionTiersSetting()}}},
	{name: "failover: null is none",
		json: withFailover(nil),
		want: &Config{Routing: Routing{Enabled: true, Observer: chartObserverConfig()}}},
	{name: "failover: a selector's expressions",
		json: withFailover(obj{"tiers": []obj{{"name": "z", "clusterSelector": obj{"matchExpressions": []obj{
			{"key": "zone", "operator": "In", "values": []string{"z1", "z2"}}}}}}}),
		want: &Config{Routing: Routing{Enabled: true, Observer: chartObserverConfig(), Failover: &omev1beta1.RoutingFailover{
			Tiers: []omev1beta1.FailoverTier{{Name: "z", ClusterSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
				{Key: "zone", Operator: metav1.LabelSelectorOpIn, Values: []string{"z1", "z2"}}}}}},
		}}}},
	{name: "failover: kept while routing is off",
		json: routing(obj{"observer": chartObserver(), "failover": regionTiers()}),
		want: &Config{Routing: Routing{Observer: chartObserverConfig(), Failover: regionTiersSetting()}}},
}

var failoverRejected = []rejectCase{
	{"failover: a tier name twice and a cluster in two tiers",
		withFailover(obj{"tiers": []obj{{"name": "a", "clusters": []string{"x"}}, {"name": "a", "clusters": []string{"x"}}}}),
		[]string{
			inv + "routing.failover: tier names must be unique (a is used more than once)",
			inv + "routing.failover: cluster x is in more than one tier",
		}},
	{"failover: a factor under 100, checked while routing is off",
		routing(obj{"observer": chartObserver(), "failover": with(regionTiers(), "overprovisioningPercent", 99)}),
		[]string{inv + "routing.failover.overprovisioningPercent must be between 100 and 1000, got 99"}},
	{"failover: disabled",
		withFailover(obj{"disabled": true}),
		[]string{bad + "routing.failover.disabled is not supported in the installation's failover: leave routing.failover out for no failover"}},
	{"failover: a list",
		withFailover([]int{}),
		[]string{bad + "routing.failover: want an object, got []"}},
	{"failover: unknown keys at each level",
		withFailover(obj{"tier": []obj{}, "tiers": []obj{{"name": "a", "Clusters": []string{"x"},
			"clusterSelector": obj{"matchLabel": obj{}, "matchExpressions": []obj{{"key": "k", "operator": "Exists", "value": []string{}}}}}}}),
		[]string{
			bad + `unknown field "routing.failover.tier"`,
			bad + `unknown field "routing.failover.tiers[0].Clusters"`,
			bad + `unknown field "routing.failover.tiers[0].clusterSelector.matchLabel"`,
			bad + `unknown field "routing.failover.tiers[0].clusterSelector.matchExpressions[0].value"`,
		}},
	{"failover: wrong types",
		withFailover(obj{"tiers": []obj{{"name": 1, "clusters": "x"}}, "overprovisioningPercent": "140"}),
		[]string{
			bad + `routing.failover.overprovisioningPercent: want a 32-bit integer, got "140"`,
			bad + "routing.failover.tiers[0].name: want a string, got 1",
			bad + `routing.failover.tiers[0].clusters: want a list of strings, got "x"`,
		}},
	{"failover: a repeated key",
		`{"routing": {"failover": {"tiers": [{"name": "a", "name": "b", "clusters": ["x"]}]}}}`,
		[]string{bad + `duplicate field "routing.failover.tiers[0].name"`}},
}

// The failover cases join the shared tables, so TestParseAccepts, TestParseRejects and the
// fuzz corpus cover them.
func init() {
	acceptedCases = append(acceptedCases, failoverAccepted...)
	rejectedCases = append(rejectedCases, failoverRejected...)
}

// The API server's table, as the installation's setting: what pkg/failover refuses in a
// service, the manager refuses at start, naming routing.failover; what it accepts, the
// manager runs with, unchanged. disabled is a service's word only.
func TestFailoverCasesAsTheInstallationsSetting(t *testing.T) {
	for _, c := range failovercases.Cases {
		t.Run(c.Name, func(t *testing.T) {
			doc := `{"routing": {"enabled": true, "observer": ` + mustJSON(chartObserver()) + `, "failover": ` + c.JSON + `}}`
			cfg, err := Parse([]byte(doc))
			want := strings.ReplaceAll(c.GoError, failover.ServicePath, failover.InstallationPath)
			switch {
			case strings.Contains(c.JSON, `"disabled"`):
				want = "routing.failover.disabled is not supported in the installation's failover"
			case want == "" && err != nil:
				t.Fatalf("Parse() error:\n%v\nwant none", err)
			case want == "":
				var sent omev1beta1.RoutingFailover
				if err := json.Unmarshal([]byte(c.JSON), &sent); err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(cfg.Routing.Failover, &sent) {
					t.Fatalf("Failover = %+v, want %+v", cfg.Routing.Failover, sent)
				}
				return
			}
			if err == nil {
				t.Fatalf("Parse() accepts %s; want %q", doc, want)
			}
			if !strings.Contains(err.Error(), want) {
				t.Fatalf("Parse() error:\n%v\nwant one with %q", err, want)
			}
		})
	}
}

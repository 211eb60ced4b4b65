package failovercases

import (
	"fmt"
	"strings"

	"github.com/ome-routing/operator/pkg/failover"
)

// Case is one failover block and both verdicts on it.
type Case struct {
	// Name names the case in test output.
	Name string
	// JSON is the block as it appears under spec.routing.failover.
	JSON string
	// APIMessage is empty when the API server accepts the block; otherwise a substring of
	// its rejection.
	APIMessage string
	// GoError is empty when failover.Validate accepts the block at spec.routing.failover;
	// otherwise a substring of one of its errors. It equals the CEL rule's message, with
	// the field's path before it, wherever a CEL rule decides.
	GoError string
}

// CELMessages are the messages of the CEL rules on a failover setting and its tiers; the
// API suite checks that the served CRD has exactly these, and that a case expects each of
// them and no other, so a new rule needs a case. A rule with a messageExpression is known
// by the longest fixed text of its literals, which every message it prints contains.
var CELMessages = []string{
	failover.MsgDisabledCombined,
	failover.MsgTiersRequired,
	failover.MsgNamesUnique,
	"is in more than one tier", // cluster <name> is in more than one tier
	failover.MsgTierEmpty,
	failover.MsgSelectorEmpty,
	failover.MsgReservedName,
}

func tiers(tiers ...string) string { return `{"tiers": [` + strings.Join(tiers, ", ") + `]}` }

func named(name string, clusters ...string) string {
	return fmt.Sprintf(`{"name": %q, "clusters": ["%s"]}`, name, strings.Join(clusters, `", "`))
}

func selected(name, region string) string {
	return fmt.Sprintf(`{"name": %q, "clusterSelector": {"matchLabels": {"topology.kubernetes.io/region": %q}}}`, name, region)
}

const path = failover.ServicePath

// Cases is the shared table.
var Cases = []Case{
	// Accepted.
	{Name: "two tiers by name", JSON: tiers(named("onprem", "a", "b"), named("cloud", "c", "d"))},
	{Name: "two tiers by region", JSON: tiers(selected("east", "us-east-1"), selected("west", "us-west-2"))},
	{Name: "names and a selector in one tier", JSON: tiers(`{"name": "near", "clusters": ["a"], "clusterSelector": {"matchLabels": {"zone": "z1"}}}`)},
	{Name: "a factor", JSON: `{"tiers": [` + named("a", "x") + `], "overprovisioningPercent": 100}`},
	{Name: "the largest factor", JSON: `{"tiers": [` + named("a", "x") + `], "overprovisioningPercent": 1000}`},
	{Name: "disabled", JSON: `{"disabled": true}`},
	{Name: "a name twice in one tier", JSON: tiers(named("a", "x", "x"))},
	{Name: "eight tiers", JSON: tiers(named("t1", "a"), named("t2", "b"), named("t3", "c"), named("t4", "d"),
		named("t5", "e"), named("t6", "f"), named("t7", "g"), named("t8", "h"))},

	// Refused by a CEL rule, with the same words in Go.
	{Name: "disabled with tiers", JSON: `{"disabled": true, "tiers": [` + named("a", "x") + `]}`,
		APIMessage: failover.MsgDisabledCombined, GoError: path + ": " + failover.MsgDisabledCombined},
	{Name: "disabled with a factor", JSON: `{"disabled": true, "overprovisioningPercent": 140}`,
		APIMessage: failover.MsgDisabledCombined, GoError: path + ": " + failover.MsgDisabledCombined},
	{Name: "no tiers", JSON: `{"overprovisioningPercent": 140}`,
		APIMessage: failover.MsgTiersRequired, GoError: path + ": " + failover.MsgTiersRequired},
	{Name: "an empty block", JSON: `{}`,
		APIMessage: failover.MsgTiersRequired, GoError: path + ": " + failover.MsgTiersRequired},
	{Name: "a tier name twice", JSON: tiers(named("a", "x"), named("a", "y")),
		APIMessage: failover.MsgNamesUnique, GoError: path + ": " + failover.MsgNamesUnique + " (a is used more than once)"},
	{Name: "a cluster in two tiers", JSON: tiers(named("a", "x", "y"), named("b", "z", "y")),
		APIMessage: "cluster y is in more than one tier", GoError: path + ": cluster y is in more than one tier"},
	{Name: "an empty tier", JSON: tiers(`{"name": "a"}`),
		APIMessage: failover.MsgTierEmpty, GoError: path + ".tiers[0]: " + failover.MsgTierEmpty},
	{Name: "an empty selector", JSON: tiers(`{"name": "a", "clusterSelector": {}}`),
		APIMessage: failover.MsgSelectorEmpty, GoError: path + ".tiers[0]: " + failover.MsgSelectorEmpty},
	{Name: "a selector with empty lists", JSON: tiers(`{"name": "a", "clusterSelector": {"matchLabels": {}, "matchExpressions": []}}`),
		APIMessage: failover.MsgSelectorEmpty, GoError: path + ".tiers[0]: " + failover.MsgSelectorEmpty},
	{Name: "the reserved name", JSON: tiers(named("unlisted", "x")),
		APIMessage: failover.MsgReservedName, GoError: path + ".tiers[0].name: " + failover.MsgReservedName},

	// Refused by the schema; Go says it in its own words.
	{Name: "no tier at all", JSON: `{"tiers": []}`,
		APIMessage: "should have at least 1 items", GoError: path + ".tiers must have 1 to 8 tiers, got 0"},
	{Name: "nine tiers", JSON: tiers(named("t1", "a"), named("t2", "b"), named("t3", "c"), named("t4", "d"),
		named("t5", "e"), named("t6", "f"), named("t7", "g"), named("t8", "h"), named("t9", "i")),
		APIMessage: "must have at most 8 items", GoError: path + ".tiers must have 1 to 8 tiers, got 9"},
	{Name: "an empty cluster list", JSON: tiers(`{"name": "a", "clusters": []}`),
		APIMessage: "should have at least 1 items", GoError: path + ".tiers[0].clusters must have 1 to 32 names, got 0"},
	{Name: "a name that is not a DNS label", JSON: tiers(named("East", "x")),
		APIMessage: "should match", GoError: path + `.tiers[0].name must be a DNS label of at most 63 characters, got "East"`},
	{Name: "a factor below 100", JSON: `{"tiers": [` + named("a", "x") + `], "overprovisioningPercent": 99}`,
		APIMessage: "should be greater than or equal to 100", GoError: path + ".overprovisioningPercent must be between 100 and 1000, got 99"},
	{Name: "a factor above 1000", JSON: `{"tiers": [` + named("a", "x") + `], "overprovisioningPercent": 1001}`,
		APIMessage: "should be less than or equal to 1000", GoError: path + ".overprovisioningPercent must be between 100 and 1000, got 1001"},

	// Accepted by the API server, refused in Go: CEL cannot parse a label selector.
	{Name: "a selector with a bad operator", JSON: tiers(`{"name": "a", "clusterSelector": {"matchExpressions": [{"key": "zone", "operator": "Near", "values": ["z1"]}]}}`),
		GoError: path + `.tiers[0].clusterSelector is not a valid label selector: "Near" is not a valid label selector operator`},
}

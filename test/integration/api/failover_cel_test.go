package api

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/test/failovercases"
)

// validFailover is a failover setting that every rule accepts: the base an UPDATE case
// starts from. It uses names, a selector and a factor, so that an UPDATE case changes each.
const validFailover = `{"tiers": [{"name": "near", "clusters": ["a", "b"]},
  {"name": "far", "clusterSelector": {"matchLabels": {"topology.kubernetes.io/region": "us-west-2"}}}],
  "overprovisioningPercent": 140}`

// expectFailoverVerdict checks a write against a failover case (see expectRoutingVerdict).
func expectFailoverVerdict(err error, c failovercases.Case, stored *unstructured.Unstructured) {
	GinkgoHelper()
	expectRoutingVerdict(err, "failover", c.APIMessage, c.JSON, stored)
}

var failoverEntries = caseEntries(failovercases.Cases, func(c failovercases.Case) string { return c.Name })

var _ = Describe("spec.routing.failover admission", func() {
	BeforeEach(func(ctx context.Context) { ensureNamespace(ctx, celNamespace) })

	DescribeTable("on CREATE",
		func(ctx context.Context, c failovercases.Case) {
			isvc := isvcWithRouting(celNamespace, "failover", c.JSON)
			expectFailoverVerdict(k8s.Create(ctx, isvc), c, isvc)
		},
		failoverEntries,
	)

	DescribeTable("on UPDATE of a service that had a valid failover",
		func(ctx context.Context, c failovercases.Case) {
			isvc := isvcWithRouting(celNamespace, "failover", validFailover)
			Expect(k8s.Create(ctx, isvc)).To(Succeed())
			isvc.Object["spec"] = isvcWithRouting(celNamespace, "failover", c.JSON).Object["spec"]
			expectFailoverVerdict(k8s.Update(ctx, isvc), c, isvc)
		},
		failoverEntries,
	)

	It("has a case for every CEL rule of the failover block and its tiers", func(ctx context.Context) {
		Expect(failovercases.Cases).To(ContainElement(HaveField("APIMessage", BeEmpty())), "no case is accepted")

		rules := servedRulesBelow(ctx, "inferenceservices.ome.io", "spec", "properties", "routing", "properties", "failover")
		Expect(rules).To(ConsistOf(failovercases.CELMessages))
		for i, rule := range rules {
			others := append(append([]string{}, rules[:i]...), rules[i+1:]...)
			Expect(failovercases.Cases).To(ContainElement(WithTransform(func(c failovercases.Case) bool {
				return matchesOnly(c.APIMessage, rule, others)
			}, BeTrue())), "no case expects the message %q", rule)
		}
	})
})

// servedRulesBelow reads the CEL messages at a path of a served CRD's v1beta1 schema and
// at every schema below it (properties, items, map values), so that a rule added deep in
// a block is found as well as one on the block itself.
func servedRulesBelow(ctx context.Context, crdName string, path ...string) []string {
	GinkgoHelper()
	crd := &unstructured.Unstructured{}
	crd.SetAPIVersion("apiextensions.k8s.io/v1")
	crd.SetKind("CustomResourceDefinition")
	Expect(k8s.Get(ctx, client.ObjectKey{Name: crdName}, crd)).To(Succeed())
	versions, _, err := unstructured.NestedSlice(crd.Object, "spec", "versions")
	Expect(err).NotTo(HaveOccurred())
	var messages []string
	var walk func(schema map[string]any)
	walk = func(schema map[string]any) {
		if rules, ok := schema["x-kubernetes-validations"].([]any); ok {
			for _, r := range rules {
				messages = append(messages, ruleMessage(r.(map[string]any)))
			}
		}
		if props, ok := schema["properties"].(map[string]any); ok {
			for _, p := range props {
				walk(p.(map[string]any))
			}
		}
		for _, key := range []string{"items", "additionalProperties"} {
			if sub, ok := schema[key].(map[string]any); ok {
				walk(sub)
			}
		}
	}
	for _, v := range versions {
		version := v.(map[string]any)
		if version["name"] != omev1beta1.GroupVersion.Version {
			continue
		}
		schema, found, err := unstructured.NestedMap(version, append([]string{"schema", "openAPIV3Schema", "properties"}, path...)...)
		Expect(err).NotTo(HaveOccurred())
		Expect(found).To(BeTrue(), "%s has no schema at %v", crdName, path)
		walk(schema)
	}
	return messages
}

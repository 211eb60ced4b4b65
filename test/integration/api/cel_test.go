package api

import (
	"context"
	"regexp"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/test/probecases"
)

const celNamespace = "api-cel"

// validProbe is a complete probe that every rule accepts: the base an UPDATE case starts from.
const validProbe = `{"path": "/v1/models", "method": "GET", "acceptStatuses": [200],
  "gateStatuses": [404, 500, 502, 503, 504], "period": "30s", "timeout": "5s",
  "failureThreshold": 3, "successThreshold": 2, "allFailedPolicy": "Drain"}`

// isvcWithProbe is an InferenceService whose spec.routing.probe is exactly the given JSON.
func isvcWithProbe(namespace, probe string) *unstructured.Unstructured {
	GinkgoHelper()
	return isvcWithRouting(namespace, "probe", probe)
}

// expectVerdict checks a write against a probe case (see expectRoutingVerdict).
func expectVerdict(err error, c probecases.Case, stored *unstructured.Unstructured) {
	GinkgoHelper()
	expectRoutingVerdict(err, "probe", c.CELMessage, c.JSON, stored)
}

// caseEntries makes a shared case table into Ginkgo entries, each named by its case.
func caseEntries[C any](cases []C, name func(C) string) []TableEntry {
	entries := make([]TableEntry, 0, len(cases))
	for _, c := range cases {
		entries = append(entries, Entry(name(c), c))
	}
	return entries
}

var _ = Describe("spec.routing.probe admission", func() {
	BeforeEach(func(ctx context.Context) { ensureNamespace(ctx, celNamespace) })

	DescribeTable("on CREATE",
		func(ctx context.Context, c probecases.Case) {
			isvc := isvcWithProbe(celNamespace, c.JSON)
			expectVerdict(k8s.Create(ctx, isvc), c, isvc)
		},
		caseEntries(probecases.Cases, func(c probecases.Case) string { return c.Name }),
	)

	DescribeTable("on UPDATE of a service that had a valid probe",
		func(ctx context.Context, c probecases.Case) {
			isvc := isvcWithProbe(celNamespace, validProbe)
			Expect(k8s.Create(ctx, isvc)).To(Succeed())

			isvc.Object["spec"] = isvcWithProbe(celNamespace, c.JSON).Object["spec"]
			expectVerdict(k8s.Update(ctx, isvc), c, isvc)
		},
		caseEntries(probecases.Cases, func(c probecases.Case) string { return c.Name }),
	)

	It("names the status that is in both lists", func(ctx context.Context) {
		overlap := strings.Replace(validProbe, `"acceptStatuses": [200]`, `"acceptStatuses": [200, 503]`, 1)
		Expect(overlap).NotTo(Equal(validProbe))

		err := k8s.Create(ctx, isvcWithProbe(celNamespace, overlap))
		Expect(err).To(HaveOccurred())
		Expect(err.Error()).To(ContainSubstring("status 503 is in both acceptStatuses and gateStatuses"))

		isvc := isvcWithProbe(celNamespace, validProbe)
		Expect(k8s.Create(ctx, isvc)).To(Succeed())
		isvc.Object["spec"] = isvcWithProbe(celNamespace, overlap).Object["spec"]
		err = k8s.Update(ctx, isvc)
		Expect(err).To(HaveOccurred())
		Expect(err.Error()).To(ContainSubstring("status 503 is in both acceptStatuses and gateStatuses"))
	})

	It("has a case for every rule of the probe's schema", func(ctx context.Context) {
		Expect(probecases.Cases).To(ContainElement(HaveField("CELMessage", BeEmpty())), "no case is accepted")
		Expect(probecases.Cases).To(ContainElement(HaveField("CELMessage", Not(BeEmpty()))), "no case is refused")

		rules := probeRules(ctx)
		Expect(rules).NotTo(BeEmpty())
		for i, rule := range rules {
			var others []string
			for j, other := range rules {
				if j != i {
					others = append(others, other)
				}
			}
			Expect(probecases.Cases).To(ContainElement(WithTransform(func(c probecases.Case) bool {
				return matchesOnly(c.CELMessage, rule, others)
			}, BeTrue())), "no case expects the message %q", rule)
		}
	})
})

// quoted finds the string literals of a CEL messageExpression, and formatVerb the
// placeholders of a literal that the expression formats.
var (
	quoted     = regexp.MustCompile(`'([^']*)'`)
	formatVerb = regexp.MustCompile(`%[a-z]`)
)

// probeRules reads the probe's CEL rules from the CRD the API server serves and returns
// each rule's message; for a messageExpression, the longest fixed text of its literals.
func probeRules(ctx context.Context) []string {
	GinkgoHelper()
	crd := &unstructured.Unstructured{}
	crd.SetAPIVersion("apiextensions.k8s.io/v1")
	crd.SetKind("CustomResourceDefinition")
	Expect(k8s.Get(ctx, client.ObjectKey{Name: "inferenceservices.ome.io"}, crd)).To(Succeed())
	versions, _, err := unstructured.NestedSlice(crd.Object, "spec", "versions")
	Expect(err).NotTo(HaveOccurred())
	var messages []string
	for _, v := range versions {
		version := v.(map[string]any)
		if version["name"] != omev1beta1.GroupVersion.Version {
			continue
		}
		rules, found, err := unstructured.NestedSlice(version, "schema", "openAPIV3Schema",
			"properties", "spec", "properties", "routing", "properties", "probe", "x-kubernetes-validations")
		Expect(err).NotTo(HaveOccurred())
		Expect(found).To(BeTrue(), "the probe schema has no CEL rules")
		for _, r := range rules {
			messages = append(messages, ruleMessage(r.(map[string]any)))
		}
	}
	return messages
}

// ruleMessage is a served CEL rule's message; for a messageExpression, the longest fixed
// text of its literals, which every message it prints contains.
func ruleMessage(rule map[string]any) string {
	GinkgoHelper()
	if msg, ok := rule["message"].(string); ok && msg != "" {
		return msg
	}
	expr, _ := rule["messageExpression"].(string)
	longest := ""
	for _, m := range quoted.FindAllStringSubmatch(expr, -1) {
		for _, piece := range formatVerb.Split(m[1], -1) {
			if lit := strings.TrimSpace(piece); len(lit) > len(longest) {
				longest = lit
			}
		}
	}
	Expect(longest).NotTo(BeEmpty(), "rule %v has neither a message nor a literal", rule)
	return longest
}

// matchesOnly says whether a case's expected message picks out this rule's message and no
// other: it is part of the message, or contains it (a messageExpression's literal).
func matchesOnly(want, rule string, others []string) bool {
	matches := func(msg string) bool {
		return want != "" && (strings.Contains(msg, want) || strings.Contains(want, msg))
	}
	if !matches(rule) {
		return false
	}
	for _, other := range others {
		if matches(other) {
			return false
		}
	}
	return true
}

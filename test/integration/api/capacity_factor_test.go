package api

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/test/capacitycases"
)

// factorsWith is spec.routing.capacityFactors with worker-a's factor as the given JSON.
func factorsWith(factor string) string { return `{"worker-a": ` + factor + `}` }

// factorPath is where a capacity factor's CEL rules sit in the InferenceService schema and
// in the TrafficMap schema.
var factorPaths = map[string][]string{
	"inferenceservices.ome.io": {"spec", "properties", "routing", "properties", "capacityFactors", "additionalProperties"},
	"trafficmaps.ome.io":       {"spec", "properties", "entries", "items", "properties", "capacity", "properties", "factor"},
}

// trafficMapWithFactor is a TrafficMap whose one entry records the given factor JSON.
func trafficMapWithFactor(factor string) *unstructured.Unstructured {
	GinkgoHelper()
	return unstructuredTrafficMap(`{"cluster": "worker-a", "weight": 1, "healthy": true, "capacity": {"factor": ` + factor + `}}`)
}

// unstructuredTrafficMap is a TrafficMap with the one entry given as JSON, so that a test
// can write values the Go type would not produce.
func unstructuredTrafficMap(entry string) *unstructured.Unstructured {
	GinkgoHelper()
	raw, err := json.Marshal(map[string]any{
		"apiVersion": omev1beta1.GroupVersion.String(),
		"kind":       "TrafficMap",
		"metadata":   map[string]any{"generateName": "tm-", "namespace": admissionNamespace},
		"spec":       map[string]any{"service": "svc", "mode": "All", "entries": []any{json.RawMessage(entry)}},
	})
	Expect(err).NotTo(HaveOccurred(), "entry %s", entry)
	u := &unstructured.Unstructured{}
	Expect(u.UnmarshalJSON(raw)).To(Succeed())
	return u
}

// factorEntries are the shared factor cases as table entries.
var factorEntries = caseEntries(capacitycases.FactorCases, func(c capacitycases.FactorCase) string { return c.Name })

// expectFactorVerdict checks a write of a TrafficMap's factor against a case.
func expectFactorVerdict(err error, c capacitycases.FactorCase) {
	GinkgoHelper()
	if c.APIMessage == "" {
		Expect(err).NotTo(HaveOccurred())
		return
	}
	expectInvalid(err, "spec.entries[0].capacity.factor", c.APIMessage)
}

var _ = Describe("spec.routing.capacityFactors admission", func() {
	BeforeEach(func(ctx context.Context) {
		ensureNamespace(ctx, celNamespace)
		ensureNamespace(ctx, admissionNamespace)
	})

	DescribeTable("on CREATE",
		func(ctx context.Context, c capacitycases.FactorCase) {
			isvc := isvcWithRouting(celNamespace, "capacityFactors", factorsWith(c.JSON))
			err := k8s.Create(ctx, isvc)
			expectRoutingVerdict(err, "capacityFactors", c.APIMessage, factorsWith(c.JSON), isvc)
			if c.APIMessage != "" {
				Expect(err.Error()).To(Or(ContainSubstring("spec.routing.capacityFactors[worker-a]: "), ContainSubstring("spec.routing.capacityFactors.worker-a: ")))
			}
		},
		factorEntries,
	)

	DescribeTable("on UPDATE of a service that had a valid factor",
		func(ctx context.Context, c capacitycases.FactorCase) {
			isvc := isvcWithRouting(celNamespace, "capacityFactors", factorsWith(`"1.5"`))
			Expect(k8s.Create(ctx, isvc)).To(Succeed())
			isvc.Object["spec"] = isvcWithRouting(celNamespace, "capacityFactors", factorsWith(c.JSON)).Object["spec"]
			expectRoutingVerdict(k8s.Update(ctx, isvc), "capacityFactors", c.APIMessage, factorsWith(c.JSON), isvc)
		},
		factorEntries,
	)

	DescribeTable("in a TrafficMap entry, on CREATE",
		func(ctx context.Context, c capacitycases.FactorCase) {
			expectFactorVerdict(k8s.Create(ctx, trafficMapWithFactor(c.JSON)), c)
		},
		factorEntries,
	)

	DescribeTable("in a TrafficMap entry, on UPDATE",
		func(ctx context.Context, c capacitycases.FactorCase) {
			tm := trafficMapWithFactor(`"2"`)
			Expect(k8s.Create(ctx, tm)).To(Succeed())
			Expect(unstructured.SetNestedField(tm.Object, trafficMapWithFactor(c.JSON).Object["spec"], "spec")).To(Succeed())
			expectFactorVerdict(k8s.Update(ctx, tm), c)
		},
		factorEntries,
	)

	It("has a case for every CEL rule of a factor, in both kinds", func(ctx context.Context) {
		for crdName, path := range factorPaths {
			Expect(servedRules(ctx, crdName, path...)).To(ConsistOf(capacitycases.FactorMessages), crdName)
		}
	})

	It("takes one service's factors at the map's maximum within the CEL cost budget", func(ctx context.Context) {
		factors := map[string]any{}
		for i := range 256 {
			factors[fmt.Sprintf("worker-%03d", i)] = "0." + strings.Repeat("0", 29) + "1"
		}
		raw, err := json.Marshal(factors)
		Expect(err).NotTo(HaveOccurred())
		Expect(k8s.Create(ctx, isvcWithRouting(celNamespace, "capacityFactors", string(raw)))).To(Succeed())
	})
})

var _ = Describe("TrafficMap probe times admission", func() {
	BeforeEach(func(ctx context.Context) { ensureNamespace(ctx, admissionNamespace) })

	// An accepted time must also decode into the typed TrafficMap, which the manager's
	// cache lists: metav1.Time refuses a lower-case t or z that format date-time allows.
	DescribeTable("lastProbeTime, lastLiftTime and unobservedSince",
		func(ctx context.Context, at string, valid bool) {
			for _, field := range []string{"probe.lastProbeTime", "probe.lastLiftTime", "unobservedSince"} {
				entry := fmt.Sprintf(`{"cluster": "worker-a", "weight": 1, "healthy": true, "probe": {"policyDigest": %q, "result": "Passing", %q: %q}}`,
					validDigest, strings.TrimPrefix(field, "probe."), at)
				if field == "unobservedSince" {
					entry = fmt.Sprintf(`{"cluster": "worker-a", "weight": 1, "healthy": true, "unobservedSince": %q}`, at)
				}
				tm := unstructuredTrafficMap(entry)
				err := k8s.Create(ctx, tm)
				if !valid {
					expectInvalid(err, "spec.entries[0]."+field, "should match")
					continue
				}
				Expect(err).NotTo(HaveOccurred(), field)
				Expect(k8s.Get(ctx, client.ObjectKeyFromObject(tm), &omev1beta1.TrafficMap{})).To(Succeed(), field)
			}
		},
		Entry("UTC, as the manager writes it", "2026-01-01T00:00:00Z", true),
		Entry("a numeric offset", "2026-01-01T00:00:00+02:00", true),
		Entry("fractional seconds", "2026-01-01T00:00:00.123456789Z", true),
		Entry("a lower-case t", "2026-01-01t00:00:00Z", false),
		Entry("a lower-case z", "2026-01-01T00:00:00z", false),
		Entry("both in lower case", "2026-01-01t00:00:00z", false),
		Entry("a space for the T", "2026-01-01 00:00:00Z", false),
		Entry("an offset without a colon", "2026-01-01T00:00:00+0200", false),
		Entry("hour 24", "2026-01-01T24:00:00Z", false),
		Entry("ten fractional digits", "2026-01-01T00:00:00.1234567890Z", false),
	)
})

// servedRules reads the CEL messages at a path of a served CRD's v1beta1 schema.
func servedRules(ctx context.Context, crdName string, path ...string) []string {
	GinkgoHelper()
	crd := &unstructured.Unstructured{}
	crd.SetAPIVersion("apiextensions.k8s.io/v1")
	crd.SetKind("CustomResourceDefinition")
	Expect(k8s.Get(ctx, client.ObjectKey{Name: crdName}, crd)).To(Succeed())
	versions, _, err := unstructured.NestedSlice(crd.Object, "spec", "versions")
	Expect(err).NotTo(HaveOccurred())
	var messages []string
	for _, v := range versions {
		version := v.(map[string]any)
		if version["name"] != omev1beta1.GroupVersion.Version {
			continue
		}
		rules, found, err := unstructured.NestedSlice(version, append([]string{"schema", "openAPIV3Schema", "properties"}, append(path, "x-kubernetes-validations")...)...)
		Expect(err).NotTo(HaveOccurred())
		Expect(found).To(BeTrue(), "%s has no CEL rules at %v", crdName, path)
		for _, r := range rules {
			messages = append(messages, ruleMessage(r.(map[string]any)))
		}
	}
	return messages
}

package api

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/ome-routing/operator/test/capacitycases"
)

// validCapacity is a complete poll that every rule accepts: the base an UPDATE case starts
// from.
const validCapacity = `{"path": "/load", "method": "POST", "format": "Report", "period": "5s",
  "timeout": "1s", "samples": 3, "quorum": 1, "maxAge": "5s"}`

// isvcWithCapacity is an InferenceService whose spec.routing.capacity is exactly the given
// JSON.
func isvcWithCapacity(namespace, capacity string) *unstructured.Unstructured {
	GinkgoHelper()
	return isvcWithRouting(namespace, "capacity", capacity)
}

// expectCapacityVerdict checks a write against a capacity case (see expectRoutingVerdict).
func expectCapacityVerdict(err error, c capacitycases.Case, stored *unstructured.Unstructured) {
	GinkgoHelper()
	expectRoutingVerdict(err, "capacity", c.CELMessage, c.JSON, stored)
}

var _ = Describe("spec.routing.capacity admission", func() {
	BeforeEach(func(ctx context.Context) { ensureNamespace(ctx, celNamespace) })

	DescribeTable("on CREATE",
		func(ctx context.Context, c capacitycases.Case) {
			isvc := isvcWithCapacity(celNamespace, c.JSON)
			expectCapacityVerdict(k8s.Create(ctx, isvc), c, isvc)
		},
		caseEntries(capacitycases.Cases, func(c capacitycases.Case) string { return c.Name }),
	)

	DescribeTable("on UPDATE of a service that had a valid poll",
		func(ctx context.Context, c capacitycases.Case) {
			isvc := isvcWithCapacity(celNamespace, validCapacity)
			Expect(k8s.Create(ctx, isvc)).To(Succeed())
			isvc.Object["spec"] = isvcWithCapacity(celNamespace, c.JSON).Object["spec"]
			expectCapacityVerdict(k8s.Update(ctx, isvc), c, isvc)
		},
		caseEntries(capacitycases.Cases, func(c capacitycases.Case) string { return c.Name }),
	)

	It("has a case for every CEL rule of the poll's schema", func(ctx context.Context) {
		rules := capacityRules(ctx)
		Expect(rules).To(ConsistOf(capacitycases.CELMessages))
	})
})

// capacityRules reads the CEL messages of spec.routing.capacity from the served CRD.
func capacityRules(ctx context.Context) []string {
	GinkgoHelper()
	return servedRules(ctx, "inferenceservices.ome.io", "spec", "properties", "routing", "properties", "capacity")
}

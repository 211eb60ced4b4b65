package publisher

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/ome-routing/operator/pkg/config"
)

var _ = Describe("A route the API server refuses", func() {
	BeforeEach(func() { useManager(guideEndpoint(), config.Publisher{}) })

	// An admission policy of the control plane (the API server's own CEL admission) refuses
	// one route by name: the apply fails, and the map's ApplyFailed event says which route
	// and quotes the API server's reason.
	It("is an ApplyFailed event naming the route and the API server's reason", func(ctx context.Context) {
		const reason = "routes named frozen-global are refused in this test"
		refuseRoutes(ctx, "ome-test-frozen-route", []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
			"object.metadata.name != 'frozen-global'", reason)

		// The API server takes up a new policy in the background: wait until a dry run of
		// such a route is refused, so the publisher's first apply meets it.
		probe := foreignRoute("default", "frozen-global", "frozen.example.test")
		Eventually(func() error {
			return fleet.ControlPlane.Client.Create(ctx, probe.DeepCopy(), client.DryRunAll)
		}).WithTimeout(timeout).WithPolling(interval).Should(MatchError(ContainSubstring(reason)))

		s := newService(ctx, "frozen", nil, nil)
		Eventually(mapEvents).WithArguments(s.key, "ApplyFailed").WithTimeout(timeout).WithPolling(interval).Should(ContainElement(And(
			HavePrefix("apply global HTTPRoute "+s.key.Namespace+"/frozen-global: "),
			ContainSubstring(reason))))
		// Between retries the condition says Transitioning; after each failed one, ApplyFailed.
		Eventually(s.condition).WithArguments("Published").WithTimeout(timeout).WithPolling(interval).Should(HavePrefix("False ApplyFailed: "))
	})
})

// refuseRoutes has the control plane's API server refuse the operations on HTTPRoutes for
// which expression (CEL, over object) is false, with message, until the spec ends. It
// returns a function that lifts the refusal sooner.
func refuseRoutes(ctx context.Context, name string, operations []admissionregistrationv1.OperationType, expression, message string) func(context.Context) {
	policy := &admissionregistrationv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionregistrationv1.Fail),
			MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
				RuleWithOperations: admissionregistrationv1.RuleWithOperations{
					Operations: operations,
					Rule: admissionregistrationv1.Rule{APIGroups: []string{gatewayv1.GroupName}, APIVersions: []string{"*"},
						Resources: []string{"httproutes"}},
				},
			}}},
			Validations: []admissionregistrationv1.Validation{{Expression: expression, Message: message}},
		},
	}
	binding := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
			PolicyName:        policy.Name,
			ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny},
		},
	}
	Expect(fleet.ControlPlane.Client.Create(ctx, policy)).To(Succeed())
	DeferCleanup(func(ctx context.Context) { Expect(fleet.ControlPlane.Client.Delete(ctx, policy)).To(Succeed()) })
	Expect(fleet.ControlPlane.Client.Create(ctx, binding)).To(Succeed())
	lift := func(ctx context.Context) {
		Expect(client.IgnoreNotFound(fleet.ControlPlane.Client.Delete(ctx, binding))).To(Succeed())
	}
	DeferCleanup(lift)
	return lift
}

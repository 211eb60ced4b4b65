package publisher

import (
	"context"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/config"
	"github.com/ome-routing/operator/pkg/publish"
)

// budgetPlan is the plan of prod/chat on Envoy Gateway Backends under a 20% retry budget,
// as the reconciler r makes it, with its BackendTrafficPolicy (nil when it has none).
func budgetPlan(t *testing.T, r *Reconciler) (publish.Plan, *publish.Object) {
	t.Helper()
	r.Endpoint = config.Endpoint{GlobalGateway: "gateway-system/global", BackendPort: 80,
		GlobalHostTemplate: "{{ .Name }}.{{ .Namespace }}.global.example.com", BackendKind: config.BackendEnvoyGateway}
	r.Publisher.Retry = &omev1beta1.PublisherRetry{Attempts: ptr.To[int32](2), Codes: []omev1beta1.HTTPStatus{503}, BudgetPercent: ptr.To[int32](20)}
	plan, err := publish.Build(publish.Input{Map: guardedMap(entryAt("worker-a", "https://chat.worker-a.example.com")),
		ServiceNamespace: "prod", ServiceName: "chat", Endpoint: r.Endpoint})
	if err != nil {
		t.Fatal(err)
	}
	plan = r.withRetry(plan, &omev1beta1.InferenceService{ObjectMeta: metav1.ObjectMeta{Namespace: "prod", Name: "chat"}})
	objects, err := plan.Objects()
	if err != nil {
		t.Fatal(err)
	}
	for i := range objects {
		if objects[i].Kind == publish.KindTrafficPolicy {
			return plan, &objects[i]
		}
	}
	return plan, nil
}

// trafficPolicyClient is a client whose API server serves BackendTrafficPolicy and holds
// objs.
func trafficPolicyClient(t *testing.T, objs ...client.Object) client.WithWatch {
	t.Helper()
	scheme := testScheme(t)
	mapper := meta.NewDefaultRESTMapper(nil)
	mapper.Add(trafficPolicyGVK, meta.RESTScopeNamespace)
	return fake.NewClientBuilder().WithScheme(scheme).WithRESTMapper(mapper).WithObjects(objs...).Build()
}

func trafficPolicy(name string, labels map[string]string) *unstructured.Unstructured {
	u := unstructuredOf(trafficPolicyGVK)
	u.SetNamespace("prod")
	u.SetName(name)
	u.SetLabels(labels)
	return u
}

// The budget reaches the plan only while the control plane serves BackendTrafficPolicy
// (the publisher has a reader of them).
func TestWithRetryWritesTheBudgetOnlyWhereTrafficPoliciesAreServed(t *testing.T) {
	if _, policy := budgetPlan(t, &Reconciler{}); policy != nil {
		t.Fatalf("a BackendTrafficPolicy where none is served: %v", policy.Object)
	}
	r := &Reconciler{TrafficPolicies: trafficPolicyClient(t)}
	_, policy := budgetPlan(t, r)
	if policy == nil {
		t.Fatal("no BackendTrafficPolicy where it is served")
	}
	if percent, _, _ := unstructured.NestedInt64(policy.Object.Object, "spec", "circuitBreaker", "retryBudget", "percent", "numerator"); percent != 20 {
		t.Fatalf("budget percent %d, want 20", percent)
	}
}

// Another source's BackendTrafficPolicy at the route's name is never taken over: the
// claim is refused, in the words of any other refused claim.
func TestForeignTrafficPolicyIsARefusedClaim(t *testing.T) {
	c := trafficPolicyClient(t, trafficPolicy("chat-global", map[string]string{"team": "other"}))
	r := &Reconciler{Client: c, Reader: c, TrafficPolicies: c}
	plan, policy := budgetPlan(t, r)
	if policy == nil {
		t.Fatal("no BackendTrafficPolicy in the plan")
	}
	_, err := r.claimable(context.Background(), *policy, plan)
	want := "global BackendTrafficPolicy prod/chat-global belongs to another source"
	if err == nil || err.Error() != want || !isClaimRejected(err) {
		t.Fatalf("claimable = %v (claim rejected %v), want the refused claim %q", err, isClaimRejected(err), want)
	}
}

// removeAll deletes the map's BackendTrafficPolicy when the plan no longer has it, and
// leaves one that is not the map's.
func TestRemoveAllDeletesTheMapsTrafficPolicy(t *testing.T) {
	c := trafficPolicyClient(t, trafficPolicy("chat-global", publish.Labels("prod", "chat")), trafficPolicy("other", map[string]string{"team": "other"}))
	r := &Reconciler{Client: c, Reader: c, TrafficPolicies: c}
	if err := r.removeAll(context.Background(), r.cached(), chatKey, nil); err != nil {
		t.Fatal(err)
	}
	left := unstructuredListOf(trafficPolicyGVK)
	if err := c.List(context.Background(), left); err != nil {
		t.Fatal(err)
	}
	if len(left.Items) != 1 || left.Items[0].GetName() != "other" {
		t.Fatalf("policies left: %v", left.Items)
	}
}

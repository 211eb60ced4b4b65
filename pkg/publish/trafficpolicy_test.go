package publish

import (
	"reflect"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/config"
	"github.com/ome-routing/operator/pkg/retry"
)

func envoyEndpoint() config.Endpoint {
	ep := guideEndpoint()
	ep.BackendKind = config.BackendEnvoyGateway
	return ep
}

// trafficPolicies are the plan's BackendTrafficPolicies, with the index of each among its
// objects.
func trafficPolicies(t *testing.T, p Plan) (map[int]*unstructured.Unstructured, int) {
	t.Helper()
	objects, err := p.Objects()
	if err != nil {
		t.Fatal(err)
	}
	out := map[int]*unstructured.Unstructured{}
	for i, o := range objects {
		if o.Object.GetKind() == KindTrafficPolicy {
			if o.Kind != KindTrafficPolicy {
				t.Errorf("object %d is a %s named %q in messages", i, KindTrafficPolicy, o.Kind)
			}
			out[i] = o.Object
		}
	}
	return out, len(objects)
}

// Under a budget with Envoy Gateway Backends, the route gets one BackendTrafficPolicy of
// its name, labelled as the route is, targeting it, with the budget's percent over 100 and
// Envoy's minimum retry concurrency, applied just before the route.
func TestWithRetryWritesTheBudgetAsATrafficPolicy(t *testing.T) {
	p, err := Build(input(twoClusters().obj(), envoyEndpoint()))
	if err != nil {
		t.Fatal(err)
	}
	q := p.WithRetry(retried(), RetryAPIs{RouteRetry: true, TrafficPolicy: true})
	if p.RetryBudget != 0 {
		t.Fatal("WithRetry changed the plan it was called on")
	}
	policies, n := trafficPolicies(t, q)
	policy, ok := policies[n-2]
	if len(policies) != 1 || !ok {
		t.Fatalf("policies at %v of %d objects, want one just before the route", policies, n)
	}
	if policy.GetAPIVersion() != "gateway.envoyproxy.io/v1alpha1" || policy.GetNamespace() != "prod" || policy.GetName() != "chat-global" {
		t.Errorf("policy %s %s/%s, want gateway.envoyproxy.io/v1alpha1 prod/chat-global", policy.GetAPIVersion(), policy.GetNamespace(), policy.GetName())
	}
	if !reflect.DeepEqual(policy.GetLabels(), Labels("prod", "chat")) {
		t.Errorf("labels %v, want the route's %v", policy.GetLabels(), Labels("prod", "chat"))
	}
	if policy.GetAnnotations()[DigestAnnotation] == "" {
		t.Errorf("no %s on the policy: %v", DigestAnnotation, policy.GetAnnotations())
	}
	want := map[string]any{
		"targetRefs": []any{map[string]any{"group": "gateway.networking.k8s.io", "kind": "HTTPRoute", "name": "chat-global"}},
		"circuitBreaker": map[string]any{"retryBudget": map[string]any{
			"percent":             map[string]any{"numerator": int64(20), "denominator": int64(100)},
			"minRetryConcurrency": int64(3),
		}},
	}
	if got := policy.Object["spec"]; !reflect.DeepEqual(got, want) {
		t.Errorf("spec\n%v\nwant\n%v", got, want)
	}
}

// No policy without a budget, for backends Envoy Gateway does not read, or when the
// control plane does not serve BackendTrafficPolicy.
func TestWithRetryWritesNoTrafficPolicy(t *testing.T) {
	noBudget := retried()
	noBudget.Retry.BudgetPercent = 0
	cases := []struct {
		name string
		ep   config.Endpoint
		pol  retry.Policy
		apis RetryAPIs
	}{
		{"no budget", envoyEndpoint(), noBudget, RetryAPIs{RouteRetry: true, TrafficPolicy: true}},
		{"timeouts only", envoyEndpoint(), retry.Policy{Request: time.Minute}, RetryAPIs{RouteRetry: true, TrafficPolicy: true}},
		{"ExternalName Services", guideEndpoint(), retried(), RetryAPIs{RouteRetry: true, TrafficPolicy: true}},
		{"BackendTrafficPolicy not served", envoyEndpoint(), retried(), RetryAPIs{RouteRetry: true}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := Build(input(twoClusters().obj(), c.ep))
			if err != nil {
				t.Fatal(err)
			}
			q := p.WithRetry(c.pol, c.apis)
			if policies, _ := trafficPolicies(t, q); len(policies) != 0 || q.RetryBudget != 0 {
				t.Errorf("policies %v, budget %d: want none", policies, q.RetryBudget)
			}
		})
	}
}

// A withdrawn plan has no route, and gets no policy.
func TestWithRetryWithdrawnHasNoTrafficPolicy(t *testing.T) {
	ep := envoyEndpoint()
	ep.GlobalGateway = ""
	p, err := Build(input(twoClusters().obj(), ep))
	if err != nil {
		t.Fatal(err)
	}
	if q := p.WithRetry(retried(), RetryAPIs{RouteRetry: true, TrafficPolicy: true}); q.RetryBudget != 0 || q.TrafficPolicy() != nil {
		t.Fatalf("a withdrawn plan has budget %d", q.RetryBudget)
	}
}

// A replay writes the route only: its plan has no policy, which stands or comes back
// with the next publication.
func TestReplayWritesNoTrafficPolicy(t *testing.T) {
	p, err := Build(input(twoClusters().obj(), envoyEndpoint()))
	if err != nil {
		t.Fatal(err)
	}
	p = p.WithRetry(retried(), RetryAPIs{RouteRetry: true, TrafficPolicy: true})
	last := &omev1beta1.TrafficMapPublisherLastPositive{PlanCompatibilityDigest: CompatibilityDigest(p),
		Targets: []omev1beta1.TrafficMapPublisherTarget{{Target: clusterTargetPrefix + "worker-a", Weight: 1}}}
	replayed, err := Replay(p, last, "prod", "chat", map[string]string{"worker-a": "chat.prod.worker-a.example.com"})
	if err != nil {
		t.Fatal(err)
	}
	if policies, _ := trafficPolicies(t, replayed); len(policies) != 0 {
		t.Fatalf("a replay writes policies %v", policies)
	}
}

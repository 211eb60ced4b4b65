package publish

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// KindTrafficPolicy is Envoy Gateway's BackendTrafficPolicy, which carries a route's retry
// budget for gateways run by Envoy Gateway.
const KindTrafficPolicy = "BackendTrafficPolicy"

// MinRetryConcurrency is the retry budget's floor in the BackendTrafficPolicy: Envoy lets
// this many retries run at once whatever the budget's percent allows, so that a route with
// few requests in flight can still retry. It is Envoy's own default, written out so that
// the policy says what it does.
const MinRetryConcurrency = 3

// TrafficPolicy is the route's BackendTrafficPolicy under a retry budget, nil without one:
// it has the route's name, namespace and labels, targets the route, and gives the
// clusters of the route's backends a circuit breaker whose retry budget is RetryBudget
// percent (Envoy's budget counts retries in flight against the requests in flight and
// pending). It is unstructured, as EnvoyBackend is: the operator does not require Envoy
// Gateway's module, whose go.mod would bring its some 290 requirements into the
// operator's module graph for the sake of one struct.
func (p Plan) TrafficPolicy() *unstructured.Unstructured {
	if p.RetryBudget <= 0 || p.Route == nil {
		return nil
	}
	labels := make(map[string]any, len(p.Labels))
	for k, v := range p.Labels {
		labels[k] = v
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": EnvoyGatewayGroup + "/" + EnvoyGatewayVersion,
		"kind":       KindTrafficPolicy,
		"metadata":   map[string]any{"name": p.Route.Name, "namespace": p.Route.Namespace, "labels": labels},
		"spec": map[string]any{
			"targetRefs": []any{map[string]any{"group": GatewayGroup, "kind": "HTTPRoute", "name": p.Route.Name}},
			"circuitBreaker": map[string]any{
				"retryBudget": map[string]any{
					// Gateway API's Fraction: numerator over denominator, written out whole
					// (the CRD defaults the denominator to 100).
					"percent":             map[string]any{"numerator": int64(p.RetryBudget), "denominator": int64(100)},
					"minRetryConcurrency": int64(MinRetryConcurrency),
				},
			},
		},
	}}
}

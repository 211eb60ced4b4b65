package publish

import (
	"reflect"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/ome-routing/operator/pkg/config"
	"github.com/ome-routing/operator/pkg/retry"
)

func retried() retry.Policy {
	return retry.Policy{Retry: &retry.Retry{Attempts: 2, Codes: []int32{503, 507}, ConnectionFailures: true,
		Backoff: 1500 * time.Millisecond, PerTryTimeout: 90 * time.Second, BudgetPercent: 20}, Request: time.Minute}
}

// With no retry and no timeouts the plan's objects are exactly those of a plan built
// before retries existed: every map keeps its route and backends byte for byte.
func TestWithRetryZeroPolicyChangesNothing(t *testing.T) {
	p, err := Build(input(twoClusters().obj(), guideEndpoint()))
	if err != nil {
		t.Fatal(err)
	}
	before, err := p.Objects()
	if err != nil {
		t.Fatal(err)
	}
	after, err := p.WithRetry(retry.Policy{}, RetryAPIs{RouteRetry: true, TrafficPolicy: true}).Objects()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(before, after) {
		t.Fatalf("the zero policy changed the objects:\n%v\n%v", before, after)
	}
}

func TestWithRetryWritesTheRouteAndEveryService(t *testing.T) {
	p, err := Build(input(twoClusters().obj(), guideEndpoint()))
	if err != nil {
		t.Fatal(err)
	}
	original := p.Route.DeepCopy()
	q := p.WithRetry(retried(), RetryAPIs{RouteRetry: true})
	if !equality.Semantic.DeepEqual(p.Route, original) || p.Backends[0].Annotations != nil {
		t.Fatal("WithRetry changed the plan it was called on")
	}
	rule := q.Route.Spec.Rules[0]
	if rule.Retry == nil || *rule.Retry.Attempts != 2 || !reflect.DeepEqual(rule.Retry.Codes, []gatewayv1.HTTPRouteRetryStatusCode{503, 507}) ||
		*rule.Retry.Backoff != "1s500ms" {
		t.Errorf("rule retry = %+v", rule.Retry)
	}
	// The per-try timeout is held to the request timeout, as the Gateway API's rule wants.
	if rule.Timeouts == nil || *rule.Timeouts.Request != "1m" || *rule.Timeouts.BackendRequest != "1m" {
		t.Errorf("rule timeouts = %+v", rule.Timeouts)
	}
	// Under a budget haproxy cannot count retries: the status codes are left out, the
	// retry on a connection failure is kept.
	want := "retries 2\nretry-on conn-failure\noption redispatch 1\n"
	for _, b := range q.Backends {
		if got := b.Service().Annotations; got[HAProxyConfigBackend] != want || got[HAProxyTimeoutServer] != "60000ms" {
			t.Errorf("backend %s annotations:\n%q\nwant config-backend\n%q", b.Name, got, want)
		}
	}
}

func TestHAProxyAnnotations(t *testing.T) {
	cases := []struct {
		name string
		r    retry.Retry
		want string
	}{
		{"connection failures only: no buffering, no budget", retry.Retry{Attempts: 1, ConnectionFailures: true, BudgetPercent: 20},
			"retries 1\nretry-on conn-failure\noption redispatch 1\n"},
		{"statuses only", retry.Retry{Attempts: 3, Codes: []int32{500, 502}},
			"retries 3\nretry-on 500 502\noption redispatch 1\noption http-buffer-request\n"},
		{"only codes haproxy lacks", retry.Retry{Attempts: 1, Codes: []int32{507}},
			"retries 1\nretry-on none\noption redispatch 1\n"},
		{"statuses under a budget: none, since haproxy cannot count retries", retry.Retry{Attempts: 2, Codes: []int32{503}, BudgetPercent: 20},
			"retries 2\nretry-on none\noption redispatch 1\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := HAProxyAnnotations(retry.Policy{Retry: &c.r})
			if got[HAProxyConfigBackend] != c.want {
				t.Errorf("config-backend\n%q\nwant\n%q", got[HAProxyConfigBackend], c.want)
			}
			if _, ok := got[HAProxyTimeoutServer]; ok {
				t.Errorf("timeout-server without a per-try timeout: %q", got)
			}
		})
	}
}

// Envoy Gateway Backends take no annotation: Envoy reads the route's retry.
func TestWithRetryLeavesEnvoyBackends(t *testing.T) {
	ep := guideEndpoint()
	ep.BackendKind = config.BackendEnvoyGateway
	p, err := Build(input(twoClusters().obj(), ep))
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range p.WithRetry(retried(), RetryAPIs{RouteRetry: true}).Backends {
		if b.Annotations != nil {
			t.Errorf("Envoy Gateway Backend %s got annotations %q", b.Name, b.Annotations)
		}
	}
}

func TestGatewayDuration(t *testing.T) {
	for d, want := range map[time.Duration]gatewayv1.Duration{
		0: "0s", time.Nanosecond: "1ms", 100 * time.Millisecond: "100ms", 90 * time.Second: "1m30s",
		time.Hour + 2*time.Minute + 3*time.Second + 4*time.Millisecond: "1h2m3s4ms", 200 * time.Hour: "200h",
	} {
		if got := GatewayDuration(d); got != want {
			t.Errorf("GatewayDuration(%v) = %q, want %q", d, got, want)
		}
	}
}

// A CRD that drops the rule's retry gets routes without it, and the rest as before.
func TestWithRetryWithoutTheRouteRetry(t *testing.T) {
	p, err := Build(input(twoClusters().obj(), guideEndpoint()))
	if err != nil {
		t.Fatal(err)
	}
	q := p.WithRetry(retried(), RetryAPIs{})
	rule := q.Route.Spec.Rules[0]
	if rule.Retry != nil || rule.Timeouts == nil || q.Backends[0].Annotations[HAProxyConfigBackend] == "" {
		t.Fatalf("rule %+v, annotations %q", rule, q.Backends[0].Annotations)
	}
}

package publish

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"k8s.io/utils/ptr"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/ome-routing/operator/pkg/config"
	"github.com/ome-routing/operator/pkg/retry"
)

// The HAProxy Ingress keys the publisher writes on its backend Services under a retry.
// HAProxy Ingress reads no retry or timeouts from a route, but it applies the Backend-scoped
// keys of the Services a route's rule names to that rule's haproxy backend, and skips a key
// whose value differs between two of them: every Service of a route carries the same.
const (
	// HAProxyConfigBackend holds raw haproxy lines for the rule's backend.
	HAProxyConfigBackend = "haproxy-ingress.github.io/config-backend"
	// HAProxyTimeoutServer is the backend's server inactivity timeout, one try's limit.
	HAProxyTimeoutServer = "haproxy-ingress.github.io/timeout-server"
)

// haproxyCodes are the 5xx statuses haproxy 2.6's retry-on accepts; a code outside them is
// applied only by gateways that read the route's retry.
var haproxyCodes = []int32{500, 501, 502, 503, 504}

// RetryAPIs say which of the APIs that carry a retry the control plane takes.
type RetryAPIs struct {
	// RouteRetry says the HTTPRoute CRD keeps a rule's retry (false once the API server
	// has been seen to drop it: Gateway API's standard channel before v1.7).
	RouteRetry bool
	// TrafficPolicy says the control plane serves Envoy Gateway's BackendTrafficPolicy,
	// which carries the retry budget to gateways run by Envoy Gateway.
	TrafficPolicy bool
}

// WithRetry writes the policy into the plan: the route's rule gets the standard retry and
// timeouts, each ExternalName backend Service the HAProxy Ingress keys that apply them
// on haproxy, and, under a budget with Envoy Gateway Backends, the route gets a
// BackendTrafficPolicy with the budget (trafficpolicy.go). The zero policy returns the
// plan unchanged, so that an installation without retries publishes exactly what it did
// before they existed.
//
// apis.RouteRetry false leaves the rule's retry out (the route's CRD drops it), and keeps
// the rest; apis.TrafficPolicy false writes no BackendTrafficPolicy (its CRD is not
// installed), and Envoy Gateway then retries without a budget.
func (p Plan) WithRetry(pol retry.Policy, apis RetryAPIs) Plan {
	if p.Withdraw || p.Route == nil || (pol.Retry == nil && pol.Request == 0) {
		return p
	}
	route := p.Route.DeepCopy()
	for i := range route.Spec.Rules {
		rule := &route.Spec.Rules[i]
		rule.Retry, rule.Timeouts = RouteRetry(pol)
		if !apis.RouteRetry {
			rule.Retry = nil
		}
	}
	p.Route = route
	if r := pol.Retry; r != nil && r.BudgetPercent > 0 && apis.TrafficPolicy && BackendKindOf(p.BackendKind).RetryBudgetPolicy {
		p.RetryBudget = r.BudgetPercent
	}
	annotations := HAProxyAnnotations(pol)
	if len(annotations) == 0 {
		return p
	}
	backends := slices.Clone(p.Backends)
	for i := range backends {
		if backends[i].Kind == config.BackendEnvoyGateway {
			continue
		}
		backends[i].Annotations = annotations
	}
	p.Backends = backends
	return p
}

// RouteRetry is the policy as a rule's retry and timeouts, nil where it sets none. The
// per-try timeout is the rule's backendRequest, at most its request timeout (the Gateway
// API's rule). Connection failures have no field: gateways retry them where they retry.
func RouteRetry(pol retry.Policy) (*gatewayv1.HTTPRouteRetry, *gatewayv1.HTTPRouteTimeouts) {
	var out *gatewayv1.HTTPRouteRetry
	var timeouts *gatewayv1.HTTPRouteTimeouts
	perTry := time.Duration(0)
	if r := pol.Retry; r != nil {
		out = &gatewayv1.HTTPRouteRetry{Attempts: ptr.To(int(r.Attempts))}
		for _, c := range r.Codes {
			out.Codes = append(out.Codes, gatewayv1.HTTPRouteRetryStatusCode(c))
		}
		if r.Backoff > 0 {
			out.Backoff = ptr.To(GatewayDuration(r.Backoff))
		}
		perTry = r.PerTryTimeout
	}
	if pol.Request > 0 && perTry > pol.Request {
		perTry = pol.Request
	}
	if pol.Request > 0 || perTry > 0 {
		timeouts = &gatewayv1.HTTPRouteTimeouts{}
		if pol.Request > 0 {
			timeouts.Request = ptr.To(GatewayDuration(pol.Request))
		}
		if perTry > 0 {
			timeouts.BackendRequest = ptr.To(GatewayDuration(perTry))
		}
	}
	return out, timeouts
}

// HAProxyAnnotations are the HAProxy Ingress keys that apply the policy's retry on haproxy
// 2.6, nil without a retry:
//   - retries bounds the attempts after the first, connection and status alike;
//   - retry-on lists conn-failure (the request was never sent) and the policy's codes that
//     haproxy knows;
//   - "option redispatch 1" sends every retry to another server, that is, another cluster;
//   - "option http-buffer-request" waits for the whole request body before the first try,
//     since haproxy retries on a status only a request it holds whole;
//   - under a budget, the status codes are left out: haproxy 2.6 has no sample fetch for a
//     request's retry count, so it cannot count retries against a share of the requests,
//     and a configuration that asks it to is refused at reload, which leaves haproxy on its
//     previous configuration for every route (docs/concepts/retries.md). A retry on a
//     connection failure sent nothing to a model server and is kept.
//
// The per-try timeout is timeout-server, haproxy's inactivity timeout of one try.
func HAProxyAnnotations(pol retry.Policy) map[string]string {
	r := pol.Retry
	if r == nil {
		return nil
	}
	var on []string
	if r.ConnectionFailures {
		on = append(on, "conn-failure")
	}
	status := false
	for _, c := range r.Codes {
		if slices.Contains(haproxyCodes, c) && r.BudgetPercent == 0 {
			on = append(on, strconv.Itoa(int(c)))
			status = true
		}
	}
	if len(on) == 0 {
		// Only codes haproxy cannot retry on: haproxy retries nothing.
		on = append(on, "none")
	}
	lines := []string{
		fmt.Sprintf("retries %d", r.Attempts),
		"retry-on " + strings.Join(on, " "),
		"option redispatch 1",
	}
	if status {
		lines = append(lines, "option http-buffer-request")
	}
	out := map[string]string{HAProxyConfigBackend: strings.Join(lines, "\n") + "\n"}
	perTry := r.PerTryTimeout
	if pol.Request > 0 && perTry > pol.Request {
		perTry = pol.Request
	}
	if perTry > 0 {
		out[HAProxyTimeoutServer] = haproxyDuration(perTry)
	}
	return out
}

// GatewayDuration writes d in the Gateway API's duration form (GEP-2257): up to four parts
// of h, m, s and ms, each of at most five digits. A part of a millisecond rounds up.
func GatewayDuration(d time.Duration) gatewayv1.Duration {
	ms := (d + time.Millisecond - 1) / time.Millisecond
	h, ms := ms/3_600_000, ms%3_600_000
	m, ms := ms/60_000, ms%60_000
	s, ms := ms/1000, ms%1000
	var b strings.Builder
	for _, part := range []struct {
		n    time.Duration
		unit string
	}{{h, "h"}, {m, "m"}, {s, "s"}, {ms, "ms"}} {
		if part.n > 0 {
			fmt.Fprintf(&b, "%d%s", part.n, part.unit)
		}
	}
	if b.Len() == 0 {
		return "0s"
	}
	return gatewayv1.Duration(b.String())
}

// haproxyDuration writes d in milliseconds, rounded up, which haproxy reads.
func haproxyDuration(d time.Duration) string {
	return strconv.FormatInt(int64((d+time.Millisecond-1)/time.Millisecond), 10) + "ms"
}

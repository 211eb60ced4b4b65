package workloadcluster

import (
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// gatewayMapper maps the two kinds the publisher reads on a member for the EndpointSlice
// fallback, fixed for the same reason as memberMapper: no discovery per member.
var gatewayMapper = func() meta.RESTMapper {
	gv := schema.GroupVersion{Group: gatewayv1.GroupName, Version: gatewayv1.GroupVersion.Version}
	m := meta.NewDefaultRESTMapper([]schema.GroupVersion{gv})
	// Named explicitly: the mapper's guess for Gateway would be "gatewaies".
	for kind, plural := range map[string]string{"Gateway": "gateways", "HTTPRoute": "httproutes"} {
		m.AddSpecific(gv.WithKind(kind), gv.WithResource(plural), gv.WithResource(strings.ToLower(kind)), meta.RESTScopeNamespace)
	}
	return m
}()

// newGatewayClient is a client that reads Gateways and HTTPRoutes on a member straight
// from its API server, with no cache: the publisher reads one route and one Gateway per
// cluster and service, at most once per addressRefreshInterval and only with the
// EndpointSlice fallback on, so a watch of every Gateway and route on every member would
// cost more, and need list and watch rights the member does not grant (get only). It is
// built with the connection, makes no request until a read, and each read is bounded by
// cfg's timeout, the member timeout.
func newGatewayClient(cfg *rest.Config, scheme *runtime.Scheme) (client.Client, error) {
	cfg = rest.CopyConfig(cfg)
	// client-go's default of 5 reads a second would hold the publisher's workers in the
	// rate limiter once a member serves more than about 150 services at a one-minute
	// refresh (two reads each); 25 a second, in bursts of 50, is what a member's API
	// server takes from one client without notice, and its own priority and fairness
	// still has the last word.
	cfg.QPS, cfg.Burst = gatewayReadQPS, gatewayReadBurst
	return client.New(cfg, client.Options{Scheme: scheme, Mapper: gatewayMapper})
}

// The member Gateway client's rate limit (see newGatewayClient).
const (
	gatewayReadQPS   = 25
	gatewayReadBurst = 50
)

// GatewayReader reads Gateways and HTTPRoutes on the member named name directly from its
// API server, or is nil when the member is not connected.
func (m *Members) GatewayReader(name string) client.Reader {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if cur := m.byName[name]; cur != nil && cur.gateways != nil {
		return cur.gateways
	}
	return nil
}

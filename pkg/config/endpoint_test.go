package config

import (
	"testing"
	"time"
)

// withEndpoint renders a routing-on document with the chart's observer, the given
// publisher block (nil leaves it out) and the given endpoint block.
func withEndpoint(publisher, endpoint obj) string {
	routing := obj{"enabled": true, "observer": chartObserver()}
	if publisher != nil {
		routing["publisher"] = publisher
	}
	doc := obj{"routing": routing}
	if endpoint != nil {
		doc["endpoint"] = endpoint
	}
	return mustJSON(doc)
}

// guideEndpoint is the endpoint block of the publishing guide's example values.
func guideEndpoint() obj {
	return obj{
		"globalGateway":      "gateway-system/global",
		"backendPort":        80,
		"globalHostTemplate": "{{ .Name }}.{{ .Namespace }}.global.example.com",
		"gatewayBackend":     obj{"rewriteHostname": true},
	}
}

func routingOn(p Publisher, e Endpoint) *Config {
	return &Config{Routing: Routing{Enabled: true, Observer: chartObserverConfig(), Publisher: p}, Endpoint: e}
}

func init() {
	guide := Endpoint{
		GlobalGateway:      "gateway-system/global",
		BackendPort:        80,
		GlobalHostTemplate: "{{ .Name }}.{{ .Namespace }}.global.example.com",
		RewriteHostname:    true,
	}
	acceptedCases = append(acceptedCases,
		parseCase{name: "publishing guide's endpoint, chart publisher",
			json: withEndpoint(obj{"name": "", "resyncInterval": "1m", "options": obj{}}, guideEndpoint()),
			want: routingOn(Publisher{ResyncInterval: time.Minute}, guide)},
		parseCase{name: "publisher named gatewayapi, Envoy Gateway backends in one namespace",
			json: withEndpoint(obj{"name": "gatewayapi", "resyncInterval": "30s"},
				with(guideEndpoint(), "routeNamespace", "gateway-routes", "gatewayBackend", obj{"kind": "EnvoyGatewayBackend"})),
			want: routingOn(Publisher{Name: "gatewayapi", ResyncInterval: 30 * time.Second}, Endpoint{
				GlobalGateway: "gateway-system/global", BackendPort: 80, GlobalHostTemplate: guide.GlobalHostTemplate,
				RouteNamespace: "gateway-routes", BackendKind: BackendEnvoyGateway})},
		parseCase{name: "BackendTLSPolicies with the system's CAs",
			json: withEndpoint(nil, with(guideEndpoint(), "gatewayBackend", obj{"rewriteHostname": true, "tls": obj{"enabled": true, "wellKnownCACertificates": "System"}})),
			want: routingOn(Publisher{}, func() Endpoint { e := guide; e.BackendTLS = true; return e }())},
		parseCase{name: "tls turned off, nothing else set",
			json: withEndpoint(nil, with(guideEndpoint(), "gatewayBackend", obj{"rewriteHostname": true, "tls": obj{"enabled": false, "wellKnownCACertificates": ""}})),
			want: routingOn(Publisher{}, guide)},
		parseCase{name: "EndpointSlices refreshed every minute",
			json: withEndpoint(nil, with(guideEndpoint(), "gatewayBackend", obj{"rewriteHostname": true, "endpointSlices": obj{"enabled": true, "addressRefreshInterval": "1m"}})),
			want: routingOn(Publisher{}, func() Endpoint { e := guide; e.EndpointSlices = true; e.AddressRefreshInterval = time.Minute; return e }())},
		parseCase{name: "EndpointSlices turned off, nothing else set",
			json: withEndpoint(nil, with(guideEndpoint(), "gatewayBackend", obj{"rewriteHostname": true, "endpointSlices": obj{"enabled": false}})),
			want: routingOn(Publisher{}, guide)},
		parseCase{name: "options are kept for the publisher to refuse",
			json: withEndpoint(obj{"options": obj{"b": "2", "a": "1"}}, nil),
			want: routingOn(Publisher{Options: map[string]string{"a": "1", "b": "2"}}, Endpoint{})},
		parseCase{name: "a port without a gateway publishes nothing and is no error",
			json: withEndpoint(nil, obj{"backendPort": 8080}),
			want: routingOn(Publisher{}, Endpoint{BackendPort: 8080})},
		parseCase{name: "global-host annotations only under the namespace's suffix",
			json: withEndpoint(nil, with(guideEndpoint(), "globalHostAnnotation", "UnderNamespace")),
			want: routingOn(Publisher{}, func() Endpoint { e := guide; e.GlobalHostAnnotation = GlobalHostUnderNamespace; return e }())},
		parseCase{name: "global-host annotations disabled, without a template",
			json: withEndpoint(nil, obj{"globalHostAnnotation": "Disabled"}),
			want: routingOn(Publisher{}, Endpoint{GlobalHostAnnotation: GlobalHostDisabled})},
		parseCase{name: "resync zero with routing off",
			json: mustJSON(obj{"routing": obj{"publisher": obj{"resyncInterval": "0s"}}}),
			want: routingOff()},
	)
	rejectedCases = append(rejectedCases,
		rejectCase{"resync not a duration", withEndpoint(obj{"resyncInterval": "60"}, nil),
			[]string{inv + `routing.publisher.resyncInterval: "60" is not a duration (use forms like "30s", "5m")`}},
		rejectCase{"resync negative", withEndpoint(obj{"resyncInterval": "-1m"}, nil),
			[]string{inv + "routing.publisher.resyncInterval must not be negative"}},
		rejectCase{"resync negative, routing off", mustJSON(obj{"routing": obj{"publisher": obj{"resyncInterval": "-1s"}}}),
			[]string{inv + "routing.publisher.resyncInterval must not be negative"}},
		rejectCase{"resync zero, routing on", withEndpoint(obj{"resyncInterval": "0s"}, nil),
			[]string{inv + "routing.publisher.resyncInterval must be positive when routing is enabled"}},
		rejectCase{"unknown publisher", withEndpoint(obj{"name": "legacy"}, nil),
			[]string{inv + `routing.publisher.name: "legacy" is not a publisher this operator has (only "gatewayapi")`}},
		rejectCase{"port too large", withEndpoint(nil, with(guideEndpoint(), "backendPort", 65536)),
			[]string{inv + "endpoint.backendPort: 65536 is not a valid port"}},
		rejectCase{"port negative", withEndpoint(nil, with(guideEndpoint(), "backendPort", -1)),
			[]string{inv + "endpoint.backendPort: -1 is not a valid port"}},
		rejectCase{"gateway without a port", withEndpoint(nil, with(guideEndpoint(), "backendPort", drop)),
			[]string{`invalid multi-cluster configuration: endpoint.backendPort: must be set when endpoint.globalGateway is configured ("gateway-system/global")`}},
		rejectCase{"gateway with port 0", withEndpoint(nil, with(guideEndpoint(), "backendPort", 0)),
			[]string{inv + `endpoint.backendPort: must be set when endpoint.globalGateway is configured ("gateway-system/global")`}},
		rejectCase{"rewriteHostname without a gateway", withEndpoint(nil, obj{"gatewayBackend": obj{"rewriteHostname": true}}),
			[]string{inv + "endpoint.globalGateway: must be set when gateway backend features are enabled"}},
		rejectCase{"unknown backend kind", withEndpoint(nil, with(guideEndpoint(), "gatewayBackend", obj{"kind": "Service"})),
			[]string{inv + `endpoint.gatewayBackend.kind: "Service" must be "ExternalNameService" or "EnvoyGatewayBackend"`}},
		rejectCase{"unknown global-host policy", withEndpoint(nil, with(guideEndpoint(), "globalHostAnnotation", "Namespace")),
			[]string{inv + `endpoint.globalHostAnnotation: "Namespace" must be "Any", "UnderNamespace" or "Disabled"`}},
		rejectCase{"UnderNamespace without a template", withEndpoint(nil, obj{"globalHostAnnotation": "UnderNamespace"}),
			[]string{inv + `endpoint.globalHostAnnotation: "UnderNamespace" needs endpoint.globalHostTemplate, which gives each namespace its suffix`}},
		rejectCase{"tls without the system's CAs", withEndpoint(nil, with(guideEndpoint(), "gatewayBackend", obj{"tls": obj{"enabled": true}})),
			[]string{inv + `endpoint.gatewayBackend.tls.wellKnownCACertificates: "" must be "System" when enabled`}},
		rejectCase{"tls with other CAs", withEndpoint(nil, with(guideEndpoint(), "gatewayBackend", obj{"tls": obj{"enabled": true, "wellKnownCACertificates": "Mozilla"}})),
			[]string{inv + `endpoint.gatewayBackend.tls.wellKnownCACertificates: "Mozilla" must be "System" when enabled`}},
		rejectCase{"tls settings while tls is off", withEndpoint(nil, with(guideEndpoint(), "gatewayBackend", obj{"tls": obj{"wellKnownCACertificates": "System"}})),
			[]string{inv + "endpoint.gatewayBackend.tls.enabled: must be true when TLS settings are supplied"}},
		rejectCase{"tls without a gateway", withEndpoint(nil, obj{"gatewayBackend": obj{"tls": obj{"enabled": true, "wellKnownCACertificates": "System"}}}),
			[]string{inv + "endpoint.globalGateway: must be set when gateway backend features are enabled"}},
		rejectCase{"an unknown tls field", withEndpoint(nil, with(guideEndpoint(), "gatewayBackend", obj{"tls": obj{"enabled": true, "caCertificateRefs": []any{}}})),
			[]string{bad + `unknown field "endpoint.gatewayBackend.tls.caCertificateRefs"`}},
		rejectCase{"EndpointSlices without a refresh interval", withEndpoint(nil, with(guideEndpoint(), "gatewayBackend", obj{"endpointSlices": obj{"enabled": true}})),
			[]string{inv + "endpoint.gatewayBackend.endpointSlices.addressRefreshInterval: must be set when enabled"}},
		rejectCase{"EndpointSlice refresh not a duration", withEndpoint(nil, with(guideEndpoint(), "gatewayBackend", obj{"endpointSlices": obj{"enabled": true, "addressRefreshInterval": "60"}})),
			[]string{inv + `endpoint.gatewayBackend.endpointSlices.addressRefreshInterval: "60" is not a duration (use forms like "30s", "5m")`}},
		rejectCase{"EndpointSlice refresh zero", withEndpoint(nil, with(guideEndpoint(), "gatewayBackend", obj{"endpointSlices": obj{"enabled": true, "addressRefreshInterval": "0s"}})),
			[]string{inv + `endpoint.gatewayBackend.endpointSlices.addressRefreshInterval: "0s" must be positive`}},
		rejectCase{"EndpointSlice refresh negative", withEndpoint(nil, with(guideEndpoint(), "gatewayBackend", obj{"endpointSlices": obj{"enabled": true, "addressRefreshInterval": "-1m"}})),
			[]string{inv + `endpoint.gatewayBackend.endpointSlices.addressRefreshInterval: "-1m" must be positive`}},
		rejectCase{"EndpointSlice settings while they are off", withEndpoint(nil, with(guideEndpoint(), "gatewayBackend", obj{"endpointSlices": obj{"addressRefreshInterval": "1m"}})),
			[]string{inv + "endpoint.gatewayBackend.endpointSlices.enabled: must be true when EndpointSlice settings are supplied"}},
		rejectCase{"EndpointSlices without a gateway", withEndpoint(nil, obj{"gatewayBackend": obj{"endpointSlices": obj{"enabled": true, "addressRefreshInterval": "1m"}}}),
			[]string{inv + "endpoint.globalGateway: must be set when gateway backend features are enabled"}},
		rejectCase{"EndpointSlices with Envoy Gateway backends", withEndpoint(nil, with(guideEndpoint(), "gatewayBackend", obj{"kind": "EnvoyGatewayBackend", "endpointSlices": obj{"enabled": true, "addressRefreshInterval": "1m"}})),
			[]string{inv + `endpoint.gatewayBackend.endpointSlices.enabled: needs gatewayBackend.kind "ExternalNameService", since EndpointSlices belong to Services`}},
		rejectCase{"an unknown endpointSlices field", withEndpoint(nil, with(guideEndpoint(), "gatewayBackend", obj{"endpointSlices": obj{"enabled": true, "addressRefreshInterval": "1m", "ports": []any{}}})),
			[]string{bad + `unknown field "endpoint.gatewayBackend.endpointSlices.ports"`}},
		rejectCase{"port a string", withEndpoint(nil, with(guideEndpoint(), "backendPort", "80")),
			[]string{bad + `endpoint.backendPort: want an integer, got "80"`}},
		rejectCase{"options not strings", withEndpoint(obj{"options": obj{"a": 1}}, nil),
			[]string{bad + `routing.publisher.options: want a map of strings, got {"a":1}`}},
		rejectCase{"every endpoint problem at once",
			withEndpoint(obj{"resyncInterval": "-1s"}, obj{"globalGateway": "gw", "backendPort": 70000, "gatewayBackend": obj{"kind": "x"}}),
			[]string{
				inv + "routing.publisher.resyncInterval must not be negative",
				inv + "endpoint.backendPort: 70000 is not a valid port",
				inv + `endpoint.gatewayBackend.kind: "x" must be "ExternalNameService" or "EnvoyGatewayBackend"`,
			}},
	)
}

func TestEffectiveDefaults(t *testing.T) {
	if got := (Publisher{}).Resync(); got != time.Minute {
		t.Errorf("Resync() of an unset interval = %v, want 1m", got)
	}
	if got := (Publisher{ResyncInterval: time.Second}).Resync(); got != time.Second {
		t.Errorf("Resync() = %v, want 1s", got)
	}
	if got := (Endpoint{}).HostAnnotation(); got != GlobalHostAny {
		t.Errorf("HostAnnotation() of an unset policy = %q, want Any", got)
	}
	if got := (Endpoint{}).Backend(); got != BackendExternalNameService {
		t.Errorf("Backend() of an unset kind = %q, want ExternalNameService", got)
	}
}

package chart

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ome-routing/operator/pkg/config"
)

// withChartPublisher adds what the chart's default publisher and endpoint values render
// to a Config that leaves them out.
func withChartPublisher(c config.Config) config.Config {
	if c.Routing.Publisher.ResyncInterval == 0 {
		c.Routing.Publisher.ResyncInterval = time.Minute
	}
	if c.Endpoint.BackendKind == "" {
		c.Endpoint.BackendKind = config.BackendExternalNameService
	}
	if c.Endpoint.GlobalHostAnnotation == "" {
		c.Endpoint.GlobalHostAnnotation = config.GlobalHostAny
	}
	return c
}

// publishValues are the publishing guide's example values: routing on and the endpoint
// block that turns publishing on.
const publishValues = `ome:
  multicluster:
    enabled: true
    role: control-plane
    config:
      endpoint:
        globalGateway: gateway-system/global
        backendPort: 80
        globalHostTemplate: "{{ .Name }}.{{ .Namespace }}.global.example.com"
        gatewayBackend:
          rewriteHostname: true
      routing:
        enabled: true
`

// The publishing guide's values render into what the manager loads, and the backend kind
// switches to Envoy Gateway's Backend objects.
func TestPublishValuesLoad(t *testing.T) {
	helmBin(t) // skips the test when HELM is unset
	guide := config.Endpoint{
		GlobalGateway:        "gateway-system/global",
		BackendPort:          80,
		GlobalHostTemplate:   "{{ .Name }}.{{ .Namespace }}.global.example.com",
		RewriteHostname:      true,
		BackendKind:          config.BackendExternalNameService,
		GlobalHostAnnotation: config.GlobalHostAny,
	}
	envoy := guide
	envoy.BackendKind, envoy.RouteNamespace = config.BackendEnvoyGateway, "global-routes"
	underNamespace := guide
	underNamespace.GlobalHostAnnotation = config.GlobalHostUnderNamespace
	cases := []struct {
		name   string
		values string
		flags  []string
		want   config.Endpoint
		resync time.Duration
	}{
		{name: "publishing guide", values: publishValues, want: guide, resync: time.Minute},
		{name: "Envoy Gateway backends in one namespace, faster resync", values: publishValues, flags: []string{
			"--set", "ome.multicluster.config.endpoint.gatewayBackend.kind=EnvoyGatewayBackend",
			"--set", "ome.multicluster.config.endpoint.routeNamespace=global-routes",
			"--set", "ome.multicluster.config.routing.publisher.resyncInterval=30s",
		}, want: envoy, resync: 30 * time.Second},
		{name: "annotated hostnames only under the namespace's suffix", values: publishValues, flags: []string{
			"--set", "ome.multicluster.config.endpoint.globalHostAnnotation=UnderNamespace",
		}, want: underNamespace, resync: time.Minute},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			data := render(t, tc.values, tc.flags...).multiclusterJSON(t)
			// The template is copied into the JSON unescaped.
			if !strings.Contains(data, `"globalHostTemplate":"{{ .Name }}.{{ .Namespace }}.global.example.com"`) {
				t.Errorf("rendered JSON does not carry the template verbatim: %s", data)
			}
			got, err := config.Parse([]byte(data))
			if err != nil {
				t.Fatalf("config.Parse: %v\n%s", err, data)
			}
			if !reflect.DeepEqual(got.Endpoint, tc.want) {
				t.Errorf("Endpoint = %+v, want %+v", got.Endpoint, tc.want)
			}
			if got.Routing.Publisher.Resync() != tc.resync || got.Routing.Publisher.Name != "" {
				t.Errorf("Publisher = %+v, want resync %v and the built-in name", got.Routing.Publisher, tc.resync)
			}
		})
	}
}

// The schema refuses what it can see alone; the rules across fields are in
// TestChartRefusesWhatTheManagerRefuses.
func TestPublishValuesRefused(t *testing.T) {
	helmBin(t) // skips the test when HELM is unset
	const endpoint = "/ome/multicluster/config/endpoint"
	schema := []struct{ name, values, want string }{
		{"backend kind", edit(t, publishValues, "rewriteHostname: true", "kind: Service"),
			"- at '" + endpoint + "/gatewayBackend/kind': value must be one of 'ExternalNameService', 'EnvoyGatewayBackend'"},
		{"port too large", edit(t, publishValues, "backendPort: 80", "backendPort: 70000"),
			"- at '" + endpoint + "/backendPort': maximum: got 70,000, want 65,535"},
		{"global-host policy", edit(t, publishValues, "        backendPort: 80\n", "        backendPort: 80\n        globalHostAnnotation: Namespace\n"),
			"- at '" + endpoint + "/globalHostAnnotation': value must be one of 'Any', 'UnderNamespace', 'Disabled'"},
		{"an unknown TLS field", edit(t, publishValues, "rewriteHostname: true", "tls: {enabled: true, caCertificateRefs: []}"),
			"- at '" + endpoint + "/gatewayBackend/tls': additional properties 'caCertificateRefs' not allowed"},
		{"resync not a duration", publishValues + "        publisher: {resyncInterval: 60}\n",
			"- at '/ome/multicluster/config/routing/publisher/resyncInterval': got number, want string"},
	}
	for _, tc := range schema {
		t.Run("schema: "+tc.name, func(t *testing.T) {
			if out := renderError(t, tc.values); !strings.Contains(out, tc.want) {
				t.Errorf("helm template error:\n%s\nwant it to contain %q", out, tc.want)
			}
		})
	}
}

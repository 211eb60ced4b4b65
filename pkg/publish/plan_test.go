package publish

import (
	"fmt"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/config"
)

// mapBuilder builds a TrafficMap of the service chat in prod.
type mapBuilder struct{ tm *omev1beta1.TrafficMap }

func makeMap() *mapBuilder {
	return &mapBuilder{tm: &omev1beta1.TrafficMap{
		ObjectMeta: metav1.ObjectMeta{Name: "chat", Namespace: "prod"},
		Spec:       omev1beta1.TrafficMapSpec{Service: "chat"},
	}}
}

func (b *mapBuilder) entry(cluster, endpoint string, weight int32) *mapBuilder {
	b.tm.Spec.Entries = append(b.tm.Spec.Entries, omev1beta1.TrafficMapEntry{Cluster: cluster, Endpoint: endpoint, Weight: weight})
	return b
}

func (b *mapBuilder) obj() *omev1beta1.TrafficMap { return b.tm }

func guideEndpoint() config.Endpoint {
	return config.Endpoint{
		GlobalGateway:      "gateway-system/global",
		BackendPort:        80,
		GlobalHostTemplate: "{{ .Name }}.{{ .Namespace }}.global.example.com",
	}
}

func input(tm *omev1beta1.TrafficMap, ep config.Endpoint) Input {
	return Input{Map: tm, ServiceNamespace: "prod", ServiceName: "chat", Endpoint: ep}
}

// twoClusters is the publishing guide's map: worker-b listed first, to show the sort.
func twoClusters() *mapBuilder {
	return makeMap().
		entry("worker-b", "http://chat.prod.worker-b.example.com", 0).
		entry("worker-a", "https://chat.prod.worker-a.example.com:8443/v1", 3)
}

func TestBuildRoute(t *testing.T) {
	p, err := Build(input(twoClusters().obj(), guideEndpoint()))
	if err != nil {
		t.Fatal(err)
	}
	r := p.Route
	if r.Name != "chat-global" || r.Namespace != "prod" {
		t.Errorf("route %s/%s, want prod/chat-global", r.Namespace, r.Name)
	}
	want := map[string]string{LabelManagedBy: "placement-endpoint", LabelService: "chat", LabelServiceNamespace: "prod"}
	if fmt.Sprint(r.Labels) != fmt.Sprint(want) {
		t.Errorf("labels %v, want %v", r.Labels, want)
	}
	parent := r.Spec.ParentRefs[0]
	if len(r.Spec.ParentRefs) != 1 || *parent.Group != "gateway.networking.k8s.io" || *parent.Kind != "Gateway" ||
		parent.Name != "global" || *parent.Namespace != "gateway-system" {
		t.Errorf("parentRefs %+v", r.Spec.ParentRefs)
	}
	if fmt.Sprint(r.Spec.Hostnames) != "[chat.prod.global.example.com]" {
		t.Errorf("hostnames %v", r.Spec.Hostnames)
	}
	if len(r.Spec.Rules) != 1 || len(r.Spec.Rules[0].Matches) != 1 {
		t.Fatalf("rules %+v, want one rule with one match", r.Spec.Rules)
	}
	m := r.Spec.Rules[0].Matches[0].Path
	if *m.Type != gatewayv1.PathMatchPathPrefix || *m.Value != "/" || r.Spec.Rules[0].Filters != nil {
		t.Errorf("match %s %s, rule filters %v: want PathPrefix / and no rewrite of the path", *m.Type, *m.Value, r.Spec.Rules[0].Filters)
	}
	var got []string
	for _, ref := range r.Spec.Rules[0].BackendRefs {
		got = append(got, fmt.Sprintf("%q/%s %s/%s:%d weight=%d filters=%d", *ref.Group, *ref.Kind, *ref.Namespace, ref.Name, *ref.Port, *ref.Weight, len(ref.Filters)))
	}
	wantRefs := []string{
		`""/Service prod/tmb-b70ae8415bbe92d52fe7db87e85f63cf0fd52863ced1dd233b54:80 weight=3 filters=0`,
		`""/Service prod/tmb-0714e9e157e0ab3913d9b9ee22de692f45ccb18cf7f370c8d64c:80 weight=0 filters=0`,
	}
	if strings.Join(got, "\n") != strings.Join(wantRefs, "\n") {
		t.Errorf("backendRefs:\n%s\nwant (sorted by cluster, weights verbatim, 0 kept):\n%s", strings.Join(got, "\n"), strings.Join(wantRefs, "\n"))
	}
	gw := p.Gateway
	if gw.Name != "global" {
		t.Errorf("gateway %+v", gw)
	}
}

func TestBuildBackends(t *testing.T) {
	for _, kind := range []config.BackendKind{"", config.BackendExternalNameService, config.BackendEnvoyGateway} {
		t.Run(string(kind), func(t *testing.T) {
			ep := guideEndpoint()
			ep.BackendKind, ep.RewriteHostname = kind, true
			p, err := Build(input(twoClusters().obj(), ep))
			if err != nil {
				t.Fatal(err)
			}
			a := p.Backends[0]
			if a.Cluster != "worker-a" || a.Host != "chat.prod.worker-a.example.com" || a.Port != 80 || a.Weight != 3 {
				t.Errorf("first backend %+v", a)
			}
			if a.Labels[LabelCluster] != "worker-a" || !OwnedBy(a.Labels, "prod", "chat") {
				t.Errorf("labels %v", a.Labels)
			}
			ref := p.Route.Spec.Rules[0].BackendRefs[0]
			if len(ref.Filters) != 1 || ref.Filters[0].Type != gatewayv1.HTTPRouteFilterURLRewrite ||
				string(*ref.Filters[0].URLRewrite.Hostname) != "chat.prod.worker-a.example.com" || ref.Filters[0].URLRewrite.Path != nil {
				t.Errorf("filters %+v, want one URLRewrite of the hostname", ref.Filters)
			}
			switch kind {
			case config.BackendEnvoyGateway:
				if *ref.Group != "gateway.envoyproxy.io" || *ref.Kind != "Backend" {
					t.Errorf("ref %s/%s, want gateway.envoyproxy.io/Backend", *ref.Group, *ref.Kind)
				}
				u := a.EnvoyBackend()
				ep := u.Object["spec"].(map[string]any)["endpoints"].([]any)[0].(map[string]any)["fqdn"].(map[string]any)
				if u.GetAPIVersion() != "gateway.envoyproxy.io/v1alpha1" || u.GetKind() != "Backend" || u.GetName() != a.Name ||
					u.GetNamespace() != "prod" || ep["hostname"] != a.Host || ep["port"] != int64(80) || u.GetLabels()[LabelCluster] != "worker-a" {
					t.Errorf("Envoy Gateway Backend %v", u.Object)
				}
			default:
				if *ref.Group != "" || *ref.Kind != "Service" {
					t.Errorf("ref %s/%s, want core Service", *ref.Group, *ref.Kind)
				}
				s := a.Service()
				if s.Spec.Type != "ExternalName" || s.Spec.ExternalName != a.Host || len(s.Spec.Ports) != 1 ||
					s.Spec.Ports[0].Port != 80 || s.Name != a.Name || s.Labels[LabelCluster] != "worker-a" {
					t.Errorf("Service %+v", s)
				}
			}
		})
	}
}

func TestNames(t *testing.T) {
	cases := []struct{ namespace, name, routeNamespace, want string }{
		{"prod", "chat", "", "chat-global"},
		{"prod", "chat", "prod", "chat-global"},
		// The publishing guide's example.
		{"prod", "chat", "gateway-routes", "chat-ba4cb5d6511184c9-global"},
		{"prod", "7b", "", "a7b-global"},
		{"prod", strings.Repeat("x", 56), "", strings.Repeat("x", 56) + "-global"},
		// Past 63 characters, 64 bits of the name's hash (checked with Python's hashlib).
		{"prod", strings.Repeat("x", 60), "", strings.Repeat("x", 46) + "-f534aef2e67c3c5e"},
		{"prod", strings.Repeat("y", 60), "gateway-routes", strings.Repeat("y", 46) + "-cd3793d696e7d8f3"},
	}
	for _, c := range cases {
		if got := RouteName(c.namespace, c.name, c.routeNamespace); got != c.want || len(got) > 63 {
			t.Errorf("RouteName(%s, %s, %q) = %s, want %s", c.namespace, c.name, c.routeNamespace, got, c.want)
		}
	}
	// Checked against an independent implementation of the hash (Python's hashlib).
	if got := BackendName("prod", "chat", "worker-a"); got != "tmb-b70ae8415bbe92d52fe7db87e85f63cf0fd52863ced1dd233b54" || len(got) != 56 {
		t.Errorf("BackendName = %s", got)
	}
	if BackendName("prod", "chat", "worker-a") == BackendName("prod", "chat", "worker-b") ||
		BackendName("prod", "chat", "worker-a") == BackendName("prod2", "chat", "worker-a") {
		t.Errorf("backend names collide")
	}
}

func TestRouteNamespaceAndHostAnnotation(t *testing.T) {
	ep := guideEndpoint()
	ep.RouteNamespace = "gateway-routes"
	ep.GlobalGateway = "global"
	in := input(twoClusters().obj(), ep)
	in.ServiceAnnotations = map[string]string{GlobalHostAnnotation: "chat.example.org"}
	p, err := Build(in)
	if err != nil {
		t.Fatal(err)
	}
	if p.Route.Namespace != "gateway-routes" || p.Route.Name != "chat-ba4cb5d6511184c9-global" || p.Backends[0].Namespace != "gateway-routes" ||
		*p.Route.Spec.Rules[0].BackendRefs[0].Namespace != "gateway-routes" {
		t.Errorf("route %s/%s, backend namespace %s", p.Route.Namespace, p.Route.Name, p.Backends[0].Namespace)
	}
	if p.Route.Spec.ParentRefs[0].Namespace != nil {
		t.Errorf("a bare gateway name sets no parentRef namespace, got %v", *p.Route.Spec.ParentRefs[0].Namespace)
	}
	if p.Hostname != "chat.example.org" || !p.Annotated {
		t.Errorf("hostname %s (annotated %v), want the annotation's", p.Hostname, p.Annotated)
	}
	// The labels still name the service, not the route's namespace.
	if !OwnedBy(p.Route.Labels, "prod", "chat") {
		t.Errorf("labels %v", p.Route.Labels)
	}
}

func TestWithdraw(t *testing.T) {
	cases := []struct {
		name   string
		edit   func(*config.Endpoint)
		reason string
	}{
		{"no gateway", func(e *config.Endpoint) { e.GlobalGateway = "" }, "endpoint.globalGateway is not set"},
		{"no port", func(e *config.Endpoint) { e.BackendPort = 0 }, "endpoint.backendPort is not set"},
		{"no hostname", func(e *config.Endpoint) { e.GlobalHostTemplate = "" },
			"no global hostname: neither the ome.io/global-host annotation nor endpoint.globalHostTemplate is set"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ep := guideEndpoint()
			c.edit(&ep)
			p, err := Build(input(twoClusters().obj(), ep))
			if err != nil || !p.Withdraw || p.WithdrawnBecause != c.reason || p.Route != nil {
				t.Errorf("Build = %+v, %v; want withdrawn because %q", p, err, c.reason)
			}
		})
	}
}

func TestBuildRejects(t *testing.T) {
	seventeen := makeMap()
	for i := range 17 {
		seventeen.entry(fmt.Sprintf("c%02d", i), fmt.Sprintf("http://c%02d.example.com", i), 1)
	}
	sixteen := makeMap()
	for i := range 16 {
		sixteen.entry(fmt.Sprintf("c%02d", i), fmt.Sprintf("http://c%02d.example.com", i), 1)
	}
	ok := func() *omev1beta1.TrafficMap { return twoClusters().obj() }
	one := func(cluster, endpoint string, weight int32) *omev1beta1.TrafficMap {
		return makeMap().entry(cluster, endpoint, weight).obj()
	}
	long := strings.Repeat("n", 64)
	cases := []struct {
		name string
		in   Input
		want string
	}{
		{"map of another service", Input{Map: ok(), ServiceNamespace: "prod", ServiceName: "other", Endpoint: guideEndpoint()},
			"TrafficMap prod/chat does not identify InferenceService prod/other"},
		{"spec.service of another service", input(func() *omev1beta1.TrafficMap { tm := ok(); tm.Spec.Service = "x"; return tm }(), guideEndpoint()),
			"TrafficMap prod/chat does not identify InferenceService prod/chat"},
		{"gateway with a space", input(ok(), withGateway(" global")), `Gateway API global gateway reference " global" is not canonical`},
		{"gateway with two slashes", input(ok(), withGateway("a/b/c")), `Gateway API global gateway reference "a/b/c" must be a name or namespace/name`},
		{"gateway namespace", input(ok(), withGateway("Gateway_System/global")),
			`Gateway API global gateway namespace "Gateway_System" is invalid: a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`},
		{"gateway name", input(ok(), withGateway("gateway-system/Global")),
			`Gateway API global gateway name "Global" is invalid: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`},
		{"port out of range", input(ok(), func() config.Endpoint { e := guideEndpoint(); e.BackendPort = 70000; return e }()),
			"Gateway API backend port 70000 is invalid: must be between 1 and 65535, inclusive"},
		{"template that does not parse", input(ok(), withTemplate("{{ .Name }")),
			`parse globalHostTemplate: template: globalHostTemplate:1: unexpected "}" in operand`},
		{"template reading another field", input(ok(), withTemplate("{{ .Labels }}.example.com")),
			`render globalHostTemplate: template: globalHostTemplate:1:3: executing "globalHostTemplate" at <.Labels>: can't evaluate field Labels in type publish.hostTemplateData`},
		{"hostname an IP", input(ok(), withTemplate("10.0.0.1")), `global hostname: hostname "10.0.0.1" must not be an IP address`},
		{"hostname in capitals", input(ok(), withTemplate("{{ .Name }}.Example.com")),
			`global hostname: hostname "chat.Example.com" is invalid: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`},
		{"seventeen entries", input(seventeen.obj(), guideEndpoint()),
			"TrafficMap has 17 entries, Gateway API HTTPRoute rules support at most 16 backendRefs"},
		{"empty cluster", input(one("", "http://a.example.com", 1), guideEndpoint()), "TrafficMap entry cluster must not be empty"},
		{"cluster name", input(one("Worker_A", "http://a.example.com", 1), guideEndpoint()),
			`TrafficMap entry cluster "Worker_A" is invalid: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`},
		{"same cluster twice", input(makeMap().entry("worker-a", "http://a.example.com", 1).entry("worker-a", "http://b.example.com", 1).obj(), guideEndpoint()),
			`TrafficMap contains more than one entry for cluster "worker-a"`},
		{"weight over the limit", input(one("worker-a", "http://a.example.com", 1000001), guideEndpoint()),
			`TrafficMap entry "worker-a" weight 1000001 must be between 0 and 1000000`},
		{"negative weight", input(one("worker-a", "http://a.example.com", -1), guideEndpoint()),
			`TrafficMap entry "worker-a" weight -1 must be between 0 and 1000000`},
		{"no endpoint", input(one("worker-a", "", 1), guideEndpoint()), `TrafficMap entry "worker-a" has no valid endpoint`},
		{"endpoint without a scheme", input(one("worker-a", "a.example.com", 1), guideEndpoint()), `TrafficMap entry "worker-a" has no valid endpoint`},
		{"endpoint an IP", input(one("worker-a", "http://127.0.0.1:8080", 1), guideEndpoint()),
			`TrafficMap entry "worker-a" backend hostname: hostname "127.0.0.1" must not be an IP address`},
		{"endpoint a wildcard", input(one("worker-a", "http://*.example.com", 1), guideEndpoint()),
			`TrafficMap entry "worker-a" backend hostname: hostname "*.example.com" is invalid: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`},
		{"endpoint with an underscore", input(one("worker-a", "http://a_b.example.com", 1), guideEndpoint()),
			`TrafficMap entry "worker-a" backend hostname: hostname "a_b.example.com" is invalid: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`},
		{"service name too long for a label", Input{Map: &omev1beta1.TrafficMap{ObjectMeta: metav1.ObjectMeta{Name: long, Namespace: "prod"}, Spec: omev1beta1.TrafficMapSpec{Service: long}},
			ServiceNamespace: "prod", ServiceName: long, Endpoint: guideEndpoint()},
			`Gateway API resource label value "` + long + `" for key "ome.io/placement-endpoint-isvc" is invalid: must be no more than 63 bytes`},
		{"route namespace", input(ok(), func() config.Endpoint { e := guideEndpoint(); e.RouteNamespace = "Routes"; return e }()),
			`HTTPRoute namespace "Routes" is invalid: a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`},
		{"cluster name too long for a label", input(one(strings.Repeat("c", 64), "http://a.example.com", 1), guideEndpoint()),
			`Gateway API resource label value "` + strings.Repeat("c", 64) + `" for key "ome.io/placement-cluster" is invalid: must be no more than 63 bytes`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := Build(c.in)
			if err == nil {
				t.Fatalf("Build = %+v, want error %q", p, c.want)
			}
			if err.Error() != c.want {
				t.Errorf("Build error:\n%s\nwant:\n%s", err, c.want)
			}
		})
	}
	if _, err := Build(input(sixteen.obj(), guideEndpoint())); err != nil {
		t.Errorf("sixteen entries: %v", err)
	}
}

// A name is checked against its own kind's rule: an HTTPRoute's is a DNS-1123 subdomain,
// so a service whose name has a dot is published.
func TestBuildDottedServiceName(t *testing.T) {
	tm := &omev1beta1.TrafficMap{ObjectMeta: metav1.ObjectMeta{Name: "chat.v2", Namespace: "prod"}, Spec: omev1beta1.TrafficMapSpec{Service: "chat.v2"}}
	tm.Spec.Entries = []omev1beta1.TrafficMapEntry{{Cluster: "worker-a", Endpoint: "http://a.example.com", Weight: 1}}
	p, err := Build(Input{Map: tm, ServiceNamespace: "prod", ServiceName: "chat.v2", Endpoint: guideEndpoint()})
	if err != nil {
		t.Fatal(err)
	}
	if p.Route.Name != "chat.v2-global" {
		t.Errorf("route name %q, want chat.v2-global", p.Route.Name)
	}
	// A cluster name of 63 characters still fits its label.
	tm.Spec.Entries[0].Cluster = strings.Repeat("c", 63)
	if _, err := Build(Input{Map: tm, ServiceNamespace: "prod", ServiceName: "chat.v2", Endpoint: guideEndpoint()}); err != nil {
		t.Errorf("a 63-character cluster name: %v", err)
	}
}

func TestCheckOptions(t *testing.T) {
	if err := CheckOptions("global", nil); err != nil {
		t.Errorf("no options: %v", err)
	}
	err := CheckOptions("global", map[string]string{"weightScale": "2", "mode": "x"})
	if err == nil || err.Error() != "Gateway API publisher does not accept global options: mode, weightScale" {
		t.Errorf("CheckOptions = %v", err)
	}
}

func withGateway(gw string) config.Endpoint {
	e := guideEndpoint()
	e.GlobalGateway = gw
	return e
}

func withTemplate(tmpl string) config.Endpoint {
	e := guideEndpoint()
	e.GlobalHostTemplate = tmpl
	return e
}

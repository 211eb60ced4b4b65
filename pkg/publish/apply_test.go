package publish

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/ome-routing/operator/pkg/config"
	"github.com/ome-routing/operator/pkg/version"
)

func planObjects(t *testing.T, ep config.Endpoint) []Object {
	t.Helper()
	p, err := Build(input(twoClusters().obj(), ep))
	if err != nil {
		t.Fatal(err)
	}
	objs, err := p.Objects()
	if err != nil {
		t.Fatal(err)
	}
	return objs
}

func TestObjectsOrderAndDigest(t *testing.T) {
	objs := planObjects(t, guideEndpoint())
	if len(objs) != 3 || objs[2].Kind != "HTTPRoute" || objs[0].Kind != "backend Service" || objs[1].Kind != "backend Service" {
		t.Fatalf("objects %v, want two backend Services then the route", kinds(objs))
	}
	if objs[0].Object.GetName() > objs[1].Object.GetName() {
		t.Errorf("backends not in name order: %s, %s", objs[0].Object.GetName(), objs[1].Object.GetName())
	}
	if _, found, _ := unstructured.NestedFieldNoCopy(objs[2].Object.Object, "status"); found {
		t.Errorf("the route carries a status to apply")
	}
	again := planObjects(t, guideEndpoint())
	for i := range objs {
		if got := objs[i].Object.GetAnnotations()[version.Annotation]; got == "" || got != version.Stamp() {
			t.Errorf("%s written by %q, want this release %q", objs[i].Kind, got, version.Stamp())
		}
		d := objs[i].Object.GetAnnotations()[DigestAnnotation]
		if len(d) != 32 || d != again[i].Object.GetAnnotations()[DigestAnnotation] {
			t.Errorf("%s digest %q, again %q: want a stable 32-hex digest", objs[i].Kind, d, again[i].Object.GetAnnotations()[DigestAnnotation])
		}
	}
	// Another setting makes other objects, and so other digests.
	ep := guideEndpoint()
	ep.RewriteHostname = true
	other := planObjects(t, ep)
	if other[2].Object.GetAnnotations()[DigestAnnotation] == objs[2].Object.GetAnnotations()[DigestAnnotation] {
		t.Errorf("the route's digest did not change with rewriteHostname")
	}
	if other[0].Object.GetAnnotations()[DigestAnnotation] != objs[0].Object.GetAnnotations()[DigestAnnotation] {
		t.Errorf("a backend's digest changed with rewriteHostname, which does not change it")
	}
}

// Under TLS each backend gets a BackendTLSPolicy of its name and labels, after the
// backends and before the route: it targets the backend and checks the workload cluster's
// hostname against the system's CAs. Envoy Gateway Backends are targeted as such.
func TestObjectsTLSPolicies(t *testing.T) {
	ep := guideEndpoint()
	ep.BackendTLS = true
	for _, kind := range []config.BackendKind{config.BackendExternalNameService, config.BackendEnvoyGateway} {
		ep.BackendKind = kind
		objs := planObjects(t, ep)
		if got := kinds(objs); len(got) != 5 || got[2] != KindTLSPolicy || got[3] != KindTLSPolicy || got[4] != "HTTPRoute" {
			t.Fatalf("%s: objects %v, want two backends, two BackendTLSPolicies, the route", kind, got)
		}
		for i := range 2 {
			backend, policy := objs[i].Object, objs[i+2].Object
			p := &gatewayv1.BackendTLSPolicy{}
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(policy.Object, p); err != nil {
				t.Fatal(err)
			}
			wantGroup, wantKind := gatewayv1.Group(""), gatewayv1.Kind("Service")
			if kind == config.BackendEnvoyGateway {
				wantGroup, wantKind = EnvoyGatewayGroup, "Backend"
			}
			host, _, _ := unstructured.NestedString(backend.Object, "spec", "externalName")
			if kind == config.BackendEnvoyGateway {
				host = backendHost(t, backend)
			}
			if p.Name != backend.GetName() || p.Namespace != backend.GetNamespace() || p.Labels[LabelCluster] != backend.GetLabels()[LabelCluster] ||
				len(p.Spec.TargetRefs) != 1 || p.Spec.TargetRefs[0].Name != gatewayv1.ObjectName(backend.GetName()) ||
				p.Spec.TargetRefs[0].Group != wantGroup || p.Spec.TargetRefs[0].Kind != wantKind ||
				string(p.Spec.Validation.Hostname) != host || ptr.Deref(p.Spec.Validation.WellKnownCACertificates, "") != gatewayv1.WellKnownCACertificatesSystem {
				t.Fatalf("%s: policy %+v for backend %s", kind, p, backend.GetName())
			}
		}
	}
	if got := kinds(planObjects(t, guideEndpoint())); len(got) != 3 {
		t.Fatalf("without TLS: %v", got)
	}
}

// backendHost is an Envoy Gateway Backend's one FQDN endpoint.
func backendHost(t *testing.T, backend *unstructured.Unstructured) string {
	t.Helper()
	endpoints, _, _ := unstructured.NestedSlice(backend.Object, "spec", "endpoints")
	if len(endpoints) != 1 {
		t.Fatalf("backend endpoints %v", endpoints)
	}
	h, _, _ := unstructured.NestedString(endpoints[0].(map[string]any), "fqdn", "hostname")
	return h
}

func kinds(objs []Object) []string {
	var out []string
	for _, o := range objs {
		out = append(out, o.Kind)
	}
	return out
}

// served is a route as the API server would hold it after desired was applied: with
// defaults, a status and metadata of its own.
func served(t *testing.T, desired *unstructured.Unstructured) map[string]any {
	t.Helper()
	route := &gatewayv1.HTTPRoute{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(desired.Object, route); err != nil {
		t.Fatal(err)
	}
	route.ResourceVersion, route.UID, route.Generation = "42", "uid", 3
	route.Spec.Rules[0].Name = nil
	route.Status.Parents = []gatewayv1.RouteParentStatus{{ControllerName: "example.com/gateway"}}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(route)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestUpToDate(t *testing.T) {
	desired := planObjects(t, guideEndpoint())[2].Object
	edit := func(f func(*gatewayv1.HTTPRoute)) map[string]any {
		m := served(t, desired)
		route := &gatewayv1.HTTPRoute{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, route); err != nil {
			t.Fatal(err)
		}
		f(route)
		out, err := runtime.DefaultUnstructuredConverter.ToUnstructured(route)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	cases := []struct {
		name string
		live map[string]any
		want bool
	}{
		{"as applied, with the server's own fields", served(t, desired), true},
		{"another writer's label", edit(func(r *gatewayv1.HTTPRoute) { r.Labels["team"] = "x" }), true},
		{"weight edited by hand", edit(func(r *gatewayv1.HTTPRoute) { r.Spec.Rules[0].BackendRefs[0].Weight = ptr.To[int32](7) }), false},
		{"a backendRef removed", edit(func(r *gatewayv1.HTTPRoute) { r.Spec.Rules[0].BackendRefs = r.Spec.Rules[0].BackendRefs[:1] }), false},
		{"our label removed", edit(func(r *gatewayv1.HTTPRoute) { delete(r.Labels, LabelService) }), false},
		{"hostname edited", edit(func(r *gatewayv1.HTTPRoute) { r.Spec.Hostnames = []gatewayv1.Hostname{"other.example.com"} }), false},
		{"no digest (written before digests, or by hand)", edit(func(r *gatewayv1.HTTPRoute) { delete(r.Annotations, DigestAnnotation) }), false},
		{"another plan's digest", edit(func(r *gatewayv1.HTTPRoute) { r.Annotations[DigestAnnotation] = "0123" }), false},
		{"written by another release", edit(func(r *gatewayv1.HTTPRoute) { r.Annotations[version.Annotation] = "v0.0.1" }), false},
	}
	for _, c := range cases {
		if got := UpToDate(desired.Object, c.live); got != c.want {
			t.Errorf("%s: UpToDate = %v, want %v", c.name, got, c.want)
		}
	}
}

// A backend Service as the API server stores it (a cluster IP of None, session affinity,
// its own metadata) is up to date with the Service the plan applies.
func TestUpToDateService(t *testing.T) {
	desired := planObjects(t, guideEndpoint())[0].Object
	svc := &corev1.Service{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(desired.Object, svc); err != nil {
		t.Fatal(err)
	}
	svc.ResourceVersion, svc.UID = "7", "uid"
	svc.Spec.SessionAffinity = corev1.ServiceAffinityNone
	svc.Spec.Ports[0].TargetPort = intstr.FromInt32(80)
	live, err := runtime.DefaultUnstructuredConverter.ToUnstructured(svc)
	if err != nil {
		t.Fatal(err)
	}
	if !UpToDate(desired.Object, live) {
		t.Errorf("a stored backend Service is not up to date with its plan")
	}
	svc.Spec.ExternalName = "elsewhere.example.com"
	if live, _ = runtime.DefaultUnstructuredConverter.ToUnstructured(svc); UpToDate(desired.Object, live) {
		t.Errorf("a Service pointed elsewhere by hand is up to date")
	}
}

func TestCovers(t *testing.T) {
	cases := []struct {
		name          string
		desired, live any
		want          bool
	}{
		{"numbers of other types", map[string]any{"port": int64(80)}, map[string]any{"port": float64(80)}, true},
		{"another number", map[string]any{"port": int64(80)}, map[string]any{"port": int64(81)}, false},
		{"a null desired field absent", map[string]any{"a": nil}, map[string]any{}, true},
		{"an empty desired list absent", map[string]any{"a": []any{}}, map[string]any{}, true},
		{"a desired field absent", map[string]any{"a": "x"}, map[string]any{}, false},
		{"a list one longer", []any{"a"}, []any{"a", "b"}, false},
		{"a string against a map", map[string]any{"a": "x"}, map[string]any{"a": map[string]any{}}, false},
	}
	for _, c := range cases {
		if got := covers(c.desired, c.live); got != c.want {
			t.Errorf("%s: covers = %v, want %v", c.name, got, c.want)
		}
	}
}

package publish

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"k8s.io/utils/ptr"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/config"
)

// MaxEntries is how many backendRefs a Gateway API HTTPRoute rule may hold.
const MaxEntries = 16

// Group and kinds the plan refers to.
const (
	GatewayGroup = gatewayv1.GroupName
	// EnvoyGatewayGroup is the API group of Envoy Gateway's Backend and
	// BackendTrafficPolicy.
	EnvoyGatewayGroup = "gateway.envoyproxy.io"
	// EnvoyGatewayVersion is the version of Envoy Gateway's kinds the plan writes.
	EnvoyGatewayVersion = "v1alpha1"
)

// Input is what a map's plan is built from.
type Input struct {
	// Map is the TrafficMap.
	Map *omev1beta1.TrafficMap
	// ServiceNamespace, ServiceName and ServiceAnnotations are the InferenceService's.
	ServiceNamespace, ServiceName string
	ServiceAnnotations            map[string]string
	// Endpoint is the installation's endpoint settings.
	Endpoint config.Endpoint
}

// Plan is what publishing a map writes, or, when Withdraw is set, that nothing is.
type Plan struct {
	// Withdraw says the map is not to be published: no gateway, port or hostname is set.
	// WithdrawnBecause says which, for the log.
	Withdraw         bool
	WithdrawnBecause string

	// Namespace is where the route and its backends live.
	Namespace string
	// Labels are the labels of every object of the plan but the per-cluster one.
	Labels map[string]string
	// Gateway is the Gateway the route attaches to, and Hostname the route's hostname.
	Gateway  gatewayv1.ParentReference
	Hostname string
	// Annotated says the hostname comes from the service's ome.io/global-host annotation,
	// not the template: another service's template hostname wins over it.
	Annotated bool
	// Route is the HTTPRoute as it should be.
	Route *gatewayv1.HTTPRoute
	// Backends are the route's backends, in backend order (SortInBackendOrder).
	Backends []Backend
	// TLS says each backend gets a BackendTLSPolicy (endpoint.gatewayBackend.tls).
	TLS bool
	// BackendKind, BackendPort and RewriteHostname are the settings every backend and
	// backendRef is written with, kept on the plan for a plan with no backend (see
	// CompatibilityDigest).
	BackendKind     config.BackendKind
	BackendPort     int32
	RewriteHostname bool
	// EndpointSlices says each backend Service gets EndpointSlices with its cluster's
	// Gateway addresses (endpoint.gatewayBackend.endpointSlices); Addresses holds them by
	// cluster, filled in by the publisher before the plan's objects are made.
	EndpointSlices bool
	Addresses      map[string]BackendAddresses
	// RetryBudget is the percent of the retry budget in the route's BackendTrafficPolicy
	// (trafficpolicy.go), 0 for no policy; WithRetry sets it.
	RetryBudget int32
}

// Backend is one workload cluster's backend: the object the route's backendRef names.
type Backend struct {
	Kind      config.BackendKind
	Name      string
	Namespace string
	Cluster   string
	// Host is the workload cluster's hostname for the service, from its endpoint URL.
	Host   string
	Port   int32
	Weight int32
	Labels map[string]string
	// Annotations are the gateway's keys on a backend Service (the retry's, retry.go);
	// nil without any.
	Annotations map[string]string
}

// Build plans the publication of in.Map. A map that cannot be published for lack of
// settings is a Plan with Withdraw set; one whose inputs break a rule is an error, whose
// message names the rule (the publisher reports it as InvalidPlan).
func Build(in Input) (Plan, error) {
	tm := in.Map
	if tm.Namespace != in.ServiceNamespace || tm.Name != in.ServiceName || tm.Spec.Service != in.ServiceName {
		return Plan{}, fmt.Errorf("TrafficMap %s/%s does not identify InferenceService %s/%s",
			tm.Namespace, tm.Name, in.ServiceNamespace, in.ServiceName)
	}
	ep := in.Endpoint
	switch {
	case ep.GlobalGateway == "":
		return Plan{Withdraw: true, WithdrawnBecause: "endpoint.globalGateway is not set"}, nil
	case ep.BackendPort == 0:
		return Plan{Withdraw: true, WithdrawnBecause: "endpoint.backendPort is not set"}, nil
	}
	gateway, err := parseGateway(ep.GlobalGateway)
	if err != nil {
		return Plan{}, err
	}
	if errs := validationPortNum(ep.BackendPort); errs != "" {
		return Plan{}, fmt.Errorf("Gateway API backend port %d is invalid: %s", ep.BackendPort, errs)
	}
	host, err := GlobalHostname(in.ServiceNamespace, in.ServiceName, in.ServiceAnnotations, ep)
	if err != nil {
		return Plan{}, err
	}
	if host.Host == "" {
		return Plan{Withdraw: true, WithdrawnBecause: "no global hostname: neither the " + GlobalHostAnnotation +
			" annotation nor endpoint.globalHostTemplate is set"}, nil
	}
	if n := len(tm.Spec.Entries); n > MaxEntries {
		return Plan{}, fmt.Errorf("TrafficMap has %d entries, Gateway API HTTPRoute rules support at most %d backendRefs", n, MaxEntries)
	}
	p := Plan{
		Namespace:       in.ServiceNamespace,
		Labels:          Labels(in.ServiceNamespace, in.ServiceName),
		Gateway:         gateway,
		Hostname:        host.Host,
		Annotated:       host.Annotated,
		TLS:             ep.BackendTLS,
		BackendKind:     ep.Backend(),
		BackendPort:     ep.BackendPort,
		RewriteHostname: ep.RewriteHostname,
		// The configuration refuses slices with Envoy Gateway Backends; a Service is what
		// a slice belongs to.
		EndpointSlices: ep.EndpointSlices && BackendKindOf(ep.Backend()).EndpointSlices,
	}
	if ep.RouteNamespace != "" {
		p.Namespace = ep.RouteNamespace
	}
	if err := checkLabels(p.Labels); err != nil {
		return Plan{}, err
	}
	if p.Backends, err = backends(in, p.Namespace); err != nil {
		return Plan{}, err
	}
	if errs := dns1123Label(p.Namespace); errs != "" {
		return Plan{}, fmt.Errorf("HTTPRoute namespace %q is invalid: %s", p.Namespace, errs)
	}
	name := RouteName(in.ServiceNamespace, in.ServiceName, ep.RouteNamespace)
	// An HTTPRoute's name is a DNS-1123 subdomain, as most kinds' are: a service named
	// model.v2 is published as model.v2-global.
	if errs := dns1123Subdomain(name); errs != "" {
		return Plan{}, fmt.Errorf("HTTPRoute name %q is invalid: %s", name, errs)
	}
	p.Route = p.route(name, ep.RewriteHostname)
	return p, nil
}

// backends plans one backend per entry, in backend order, after checking every entry.
func backends(in Input, namespace string) ([]Backend, error) {
	seen := map[string]bool{}
	out := make([]Backend, 0, len(in.Map.Spec.Entries))
	for _, e := range in.Map.Spec.Entries {
		switch {
		case e.Cluster == "":
			return nil, fmt.Errorf("TrafficMap entry cluster must not be empty")
		case dns1123Subdomain(e.Cluster) != "":
			return nil, fmt.Errorf("TrafficMap entry cluster %q is invalid: %s", e.Cluster, dns1123Subdomain(e.Cluster))
		case seen[e.Cluster]:
			return nil, fmt.Errorf("TrafficMap contains more than one entry for cluster %q", e.Cluster)
		case e.Weight < 0 || e.Weight > omev1beta1.MaxWeight:
			return nil, fmt.Errorf("TrafficMap entry %q weight %d must be between 0 and %d", e.Cluster, e.Weight, omev1beta1.MaxWeight)
		}
		seen[e.Cluster] = true
		host, err := BackendHost(e.Endpoint)
		var invalid *InvalidEndpoint
		switch {
		case errors.As(err, &invalid):
			return nil, fmt.Errorf("TrafficMap entry %q has no valid endpoint", e.Cluster)
		case err != nil:
			return nil, fmt.Errorf("TrafficMap entry %q %w", e.Cluster, err)
		}
		labels := Labels(in.ServiceNamespace, in.ServiceName)
		labels[LabelCluster] = e.Cluster
		// A cluster's name may be a 253-character subdomain; a label value holds 63.
		if err := checkLabels(labels); err != nil {
			return nil, err
		}
		name := BackendName(in.ServiceNamespace, in.ServiceName, e.Cluster)
		if errs := BackendKindOf(in.Endpoint.Backend()).NameRule(name); errs != "" {
			return nil, fmt.Errorf("TrafficMap entry %q generates invalid backend Service name %q: %s", e.Cluster, name, errs)
		}
		out = append(out, Backend{
			Kind:      in.Endpoint.Backend(),
			Name:      name,
			Namespace: namespace,
			Cluster:   e.Cluster,
			Host:      host,
			Port:      in.Endpoint.BackendPort,
			Weight:    e.Weight,
			Labels:    labels,
		})
	}
	SortInBackendOrder(out, func(b Backend) string { return b.Cluster })
	return out, nil
}

// route is the HTTPRoute: the one hostname on the gateway, one rule matching every path,
// and a backendRef per backend whose weight is the map's, zero included, so that a gated
// cluster is in the route and gets nothing.
func (p Plan) route(name string, rewriteHostname bool) *gatewayv1.HTTPRoute {
	refs := make([]gatewayv1.HTTPBackendRef, 0, len(p.Backends))
	for _, b := range p.Backends {
		ref := gatewayv1.HTTPBackendRef{BackendRef: gatewayv1.BackendRef{
			BackendObjectReference: b.objectReference(),
			Weight:                 ptr.To(b.Weight),
		}}
		if rewriteHostname {
			ref.Filters = []gatewayv1.HTTPRouteFilter{{
				Type:       gatewayv1.HTTPRouteFilterURLRewrite,
				URLRewrite: &gatewayv1.HTTPURLRewriteFilter{Hostname: ptr.To(gatewayv1.PreciseHostname(b.Host))},
			}}
		}
		refs = append(refs, ref)
	}
	route := &gatewayv1.HTTPRoute{}
	route.APIVersion = gatewayv1.GroupVersion.String()
	route.Kind = "HTTPRoute"
	route.Name, route.Namespace, route.Labels = name, p.Namespace, p.Labels
	route.Spec = gatewayv1.HTTPRouteSpec{
		CommonRouteSpec: gatewayv1.CommonRouteSpec{ParentRefs: []gatewayv1.ParentReference{p.Gateway}},
		Hostnames:       []gatewayv1.Hostname{gatewayv1.Hostname(p.Hostname)},
		Rules: []gatewayv1.HTTPRouteRule{{
			Matches: []gatewayv1.HTTPRouteMatch{{Path: &gatewayv1.HTTPPathMatch{
				Type:  ptr.To(gatewayv1.PathMatchPathPrefix),
				Value: ptr.To("/"),
			}}},
			BackendRefs: refs,
		}},
	}
	return route
}

func (b Backend) objectReference() gatewayv1.BackendObjectReference {
	ref := gatewayv1.BackendObjectReference{
		Name:      gatewayv1.ObjectName(b.Name),
		Namespace: ptr.To(gatewayv1.Namespace(b.Namespace)),
		Port:      ptr.To(b.Port),
	}
	gvk := BackendKindOf(b.Kind).GVK
	ref.Group = ptr.To(gatewayv1.Group(gvk.Group))
	ref.Kind = ptr.To(gatewayv1.Kind(gvk.Kind))
	return ref
}

// parseGateway reads the globalGateway setting: "name" or "namespace/name".
func parseGateway(ref string) (gatewayv1.ParentReference, error) {
	if strings.TrimSpace(ref) != ref || strings.ContainsAny(ref, " \t\r\n") {
		return gatewayv1.ParentReference{}, fmt.Errorf("Gateway API global gateway reference %q is not canonical", ref)
	}
	parts := strings.Split(ref, "/")
	if len(parts) > 2 {
		return gatewayv1.ParentReference{}, fmt.Errorf("Gateway API global gateway reference %q must be a name or namespace/name", ref)
	}
	out := gatewayv1.ParentReference{
		Group: ptr.To(gatewayv1.Group(GatewayGroup)),
		Kind:  ptr.To(gatewayv1.Kind("Gateway")),
	}
	name := parts[len(parts)-1]
	if len(parts) == 2 {
		if errs := dns1123Label(parts[0]); errs != "" {
			return gatewayv1.ParentReference{}, fmt.Errorf("Gateway API global gateway namespace %q is invalid: %s", parts[0], errs)
		}
		out.Namespace = ptr.To(gatewayv1.Namespace(parts[0]))
	}
	if errs := dns1123Subdomain(name); errs != "" {
		return gatewayv1.ParentReference{}, fmt.Errorf("Gateway API global gateway name %q is invalid: %s", name, errs)
	}
	out.Name = gatewayv1.ObjectName(name)
	return out, nil
}

// checkLabels checks the label values, which come from the service's names: a label value
// is at most 63 characters, where a name may have 253.
func checkLabels(labels map[string]string) error {
	keys := make([]string, 0, len(labels))
	for k := range labels {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if errs := labelValue(labels[k]); errs != "" {
			return fmt.Errorf("Gateway API resource label value %q for key %q is invalid: %s", labels[k], k, errs)
		}
	}
	return nil
}

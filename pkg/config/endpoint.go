package config

import (
	"maps"
	"time"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

// DefaultResyncInterval is how often the publisher looks at every TrafficMap again when
// routing.publisher.resyncInterval is left out. The chart sets the same value.
const DefaultResyncInterval = time.Minute

// BuiltinPublisher is the name of the only publisher this operator has: it writes each
// TrafficMap into a Gateway API HTTPRoute. An empty routing.publisher.name selects it too.
const BuiltinPublisher = "gatewayapi"

// BackendKind is the kind of object the publisher writes for each cluster of a map, for
// the route's backendRefs to point at.
type BackendKind string

const (
	// BackendExternalNameService writes a core Service of type ExternalName, as OME does.
	// Gateways that accept ExternalName Services as backends route to it.
	BackendExternalNameService BackendKind = "ExternalNameService"
	// BackendEnvoyGateway writes an Envoy Gateway Backend (gateway.envoyproxy.io/v1alpha1)
	// with an FQDN endpoint, because Envoy Gateway refuses ExternalName Services.
	BackendEnvoyGateway BackendKind = "EnvoyGatewayBackend"
)

// BackendKinds are the values endpoint.gatewayBackend.kind accepts, the default first.
// What the publisher writes for each is in pkg/publish (BackendKinds there), whose test
// keeps the two lists and the chart's enum the same.
var BackendKinds = []BackendKind{BackendExternalNameService, BackendEnvoyGateway}

// Publisher holds the settings under routing.publisher.
type Publisher struct {
	// Name is the publisher as configured: empty or BuiltinPublisher, which are the same.
	Name string
	// ResyncInterval is how often every map is published again, zero when left out: use
	// Resync for the effective value.
	ResyncInterval time.Duration
	// Options are the publisher's global options. The built-in publisher accepts none and
	// marks every map InvalidOptions while any is set.
	Options map[string]string
	// Retry and Timeouts are the installation's retry and timeouts on every route
	// (docs/concepts/retries.md), which a service's spec.routing.publisher blocks replace;
	// nil for none, which publishes routes as they were before retries existed.
	Retry    *omev1beta1.PublisherRetry
	Timeouts *omev1beta1.PublisherTimeouts
}

// Resync is the effective resync interval.
func (p Publisher) Resync() time.Duration {
	if p.ResyncInterval == 0 {
		return DefaultResyncInterval
	}
	return p.ResyncInterval
}

// Endpoint holds the settings under endpoint: where the publisher writes each map.
type Endpoint struct {
	// GlobalGateway is the Gateway the routes attach to: "namespace/name", or "name" for
	// the route's own namespace. Empty withdraws every publication.
	GlobalGateway string
	// BackendPort is the port on the workload clusters' gateways that the routes forward
	// to; set whenever GlobalGateway is.
	BackendPort int32
	// GlobalHostTemplate renders a service's global hostname from its .Name and
	// .Namespace, unless the service's ome.io/global-host annotation names one.
	GlobalHostTemplate string
	// GlobalHostAnnotation is which hostnames a service's ome.io/global-host annotation
	// may name; empty when left out: use HostAnnotation for the effective policy.
	GlobalHostAnnotation GlobalHostAnnotationPolicy
	// RouteNamespace puts every route and backend in one namespace; empty keeps each in
	// its service's namespace.
	RouteNamespace string
	// RewriteHostname gives each backendRef a URLRewrite filter that sets the Host header
	// to the workload cluster's hostname.
	RewriteHostname bool
	// BackendKind is what each cluster's backend is written as, empty when left out: use
	// Backend for the effective kind.
	BackendKind BackendKind
	// BackendTLS writes a BackendTLSPolicy for each cluster's backend, so that the
	// gateway speaks TLS to the workload cluster and checks its certificate for the
	// cluster's hostname against the system's well-known CAs (gatewayBackend.tls).
	BackendTLS bool
	// EndpointSlices writes, next to each cluster's ExternalName Service, EndpointSlices
	// holding the IP addresses the cluster's serving Gateway reports in its status
	// (gatewayBackend.endpointSlices), for gateways that route to a Service's endpoints.
	EndpointSlices bool
	// AddressRefreshInterval is the longest time a resolved set of addresses is used
	// before the publisher reads the workload cluster's Gateway again; positive whenever
	// EndpointSlices is on, zero otherwise.
	AddressRefreshInterval time.Duration
}

// WellKnownCASystem is the only gatewayBackend.tls.wellKnownCACertificates there is: the
// gateway's own set of trusted CAs (Gateway API's WellKnownCACertificatesSystem).
const WellKnownCASystem = "System"

// GlobalHostAnnotationPolicy is which hostnames the ome.io/global-host annotation may
// name. An annotation never names a wildcard, and never a hostname that the template gives
// another service (a template hostname wins).
type GlobalHostAnnotationPolicy string

const (
	// GlobalHostAny accepts any hostname the Gateway API accepts, as OME does: the
	// default, for compatibility; one tenant can then take a hostname no template gives.
	GlobalHostAny GlobalHostAnnotationPolicy = "Any"
	// GlobalHostUnderNamespace accepts only hostnames under the suffix that
	// globalHostTemplate gives the service's own namespace.
	GlobalHostUnderNamespace GlobalHostAnnotationPolicy = "UnderNamespace"
	// GlobalHostDisabled refuses every annotated hostname.
	GlobalHostDisabled GlobalHostAnnotationPolicy = "Disabled"
)

// HostAnnotation is the effective policy for the ome.io/global-host annotation.
func (e Endpoint) HostAnnotation() GlobalHostAnnotationPolicy {
	if e.GlobalHostAnnotation == "" {
		return GlobalHostAny
	}
	return e.GlobalHostAnnotation
}

// Backend is the effective backend kind: ExternalName Services unless set otherwise.
func (e Endpoint) Backend() BackendKind {
	if e.BackendKind == "" {
		return BackendExternalNameService
	}
	return e.BackendKind
}

// cloneOptions copies the options so that a Config shares no map with its caller.
func cloneOptions(in *map[string]string) map[string]string {
	if in == nil || len(*in) == 0 {
		return nil
	}
	return maps.Clone(*in)
}

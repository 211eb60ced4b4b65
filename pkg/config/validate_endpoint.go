package config

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
)

// publisher checks routing.publisher. The resync interval may be left out (the default
// applies); one that is set must be a positive duration when routing is on.
func (v *validator) publisher(raw rawPublisher, path string, routingEnabled bool) Publisher {
	p := Publisher{Name: deref(raw.name), Options: cloneOptions(raw.options)}
	if p.Name != "" && p.Name != BuiltinPublisher {
		v.fail("%s.name: %q is not a publisher this operator has (only %q)", path, *raw.name, BuiltinPublisher)
	}
	resync, ok := v.duration(raw.resyncInterval, path+".resyncInterval")
	switch {
	case !ok || resync == nil:
	case *resync < 0:
		v.fail("%s.resyncInterval must not be negative", path)
	case *resync == 0 && routingEnabled:
		v.fail("%s.resyncInterval must be positive when routing is enabled", path)
	default:
		p.ResyncInterval = *resync
	}
	p.Retry, p.Timeouts = v.retryAndTimeouts(raw.retry, raw.timeouts, path)
	return p
}

// endpoint checks the endpoint block, in the order OME reports its problems.
func (v *validator) endpoint(raw rawEndpoint, path string) Endpoint {
	// Durations come first, as OME checks every duration field before the other rules.
	refresh, refreshOK := v.duration(raw.slicesRefresh, path+".gatewayBackend.endpointSlices.addressRefreshInterval")
	if refreshOK && refresh != nil && *refresh <= 0 {
		v.fail("%s.gatewayBackend.endpointSlices.addressRefreshInterval: %q must be positive", path, rawString(raw.slicesRefresh))
		refreshOK = false
	}
	e := Endpoint{
		GlobalGateway:      deref(raw.globalGateway),
		GlobalHostTemplate: deref(raw.globalHostTemplate),
		RouteNamespace:     deref(raw.routeNamespace),
		RewriteHostname:    raw.rewriteHostname != nil && *raw.rewriteHostname,
	}
	if raw.backendPort != nil {
		if port := *raw.backendPort; port < 0 || port > 65535 {
			v.fail("%s.backendPort: %d is not a valid port", path, port)
		} else {
			e.BackendPort = int32(port)
		}
	}
	if e.GlobalGateway != "" && (raw.backendPort == nil || *raw.backendPort == 0) {
		v.fail("%s.backendPort: must be set when %s.globalGateway is configured (%q)", path, path, e.GlobalGateway)
	}
	e.BackendTLS = raw.tlsEnabled != nil && *raw.tlsEnabled
	slicesOn := raw.slicesEnabled != nil && *raw.slicesEnabled
	if e.GlobalGateway == "" && (e.RewriteHostname || e.BackendTLS || slicesOn) {
		v.fail("%s.globalGateway: must be set when gateway backend features are enabled", path)
	}
	ca := deref(raw.tlsWellKnownCA)
	switch {
	case e.BackendTLS && ca != WellKnownCASystem:
		v.fail("%s.gatewayBackend.tls.wellKnownCACertificates: %q must be %q when enabled", path, ca, WellKnownCASystem)
	case !e.BackendTLS && ca != "":
		v.fail("%s.gatewayBackend.tls.enabled: must be true when TLS settings are supplied", path)
	}
	switch {
	case slicesOn && raw.slicesRefresh == nil:
		v.fail("%s.gatewayBackend.endpointSlices.addressRefreshInterval: must be set when enabled", path)
	case slicesOn && refreshOK:
		e.EndpointSlices = true
		e.AddressRefreshInterval = *refresh
	case !slicesOn && raw.slicesRefresh != nil:
		v.fail("%s.gatewayBackend.endpointSlices.enabled: must be true when EndpointSlice settings are supplied", path)
	}
	if raw.globalHostAnnot != nil && *raw.globalHostAnnot != "" {
		switch a := GlobalHostAnnotationPolicy(*raw.globalHostAnnot); a {
		case GlobalHostAny, GlobalHostUnderNamespace, GlobalHostDisabled:
			e.GlobalHostAnnotation = a
		default:
			v.fail("%s.globalHostAnnotation: %q must be %q, %q or %q", path, *raw.globalHostAnnot,
				GlobalHostAny, GlobalHostUnderNamespace, GlobalHostDisabled)
		}
	}
	if e.GlobalHostAnnotation == GlobalHostUnderNamespace && e.GlobalHostTemplate == "" {
		v.fail("%s.globalHostAnnotation: %q needs %s.globalHostTemplate, which gives each namespace its suffix",
			path, GlobalHostUnderNamespace, path)
	}
	if raw.kind != nil && *raw.kind != "" {
		if k := BackendKind(*raw.kind); slices.Contains(BackendKinds, k) {
			e.BackendKind = k
		} else {
			v.fail("%s.gatewayBackend.kind: %q must be %s", path, *raw.kind, quotedOr(BackendKinds))
		}
	}
	// An EndpointSlice belongs to a Service (kubernetes.io/service-name); the other kinds
	// (an Envoy Gateway Backend) have no Service for it to belong to, so the two cannot be
	// combined.
	if slicesOn && e.Backend() != BackendExternalNameService {
		v.fail("%s.gatewayBackend.endpointSlices.enabled: needs gatewayBackend.kind %q, since EndpointSlices belong to Services",
			path, BackendExternalNameService)
	}
	return e
}

// rawString is the text of a JSON string as it was written, for messages that quote the
// setting; duration has already checked that raw is a string.
func rawString(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return excerpt(raw)
	}
	return shorten(s)
}

// quotedOr lists kinds quoted, the last after "or": "a", "b" or "c".
func quotedOr(kinds []BackendKind) string {
	q := make([]string, len(kinds))
	for i, k := range kinds {
		q[i] = strconv.Quote(string(k))
	}
	if len(q) < 2 {
		return strings.Join(q, "")
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}

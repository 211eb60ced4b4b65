package config

import "encoding/json"

// rawPublisher is routing.publisher as decoded.
type rawPublisher struct {
	name           *string
	resyncInterval json.RawMessage
	options        *map[string]string
	retry          rawRetry
	timeouts       rawTimeouts
}

// rawEndpoint is the endpoint block as decoded: where the publisher writes the routes.
type rawEndpoint struct {
	globalGateway      *string
	backendPort        *int64
	globalHostTemplate *string
	globalHostAnnot    *string
	routeNamespace     *string
	rewriteHostname    *bool
	kind               *string
	tlsEnabled         *bool
	tlsWellKnownCA     *string
	slicesEnabled      *bool
	slicesRefresh      json.RawMessage
}

func (d *decoder) publisher(raw json.RawMessage, path string) rawPublisher {
	fields := d.object(raw, path, "name", "resyncInterval", "options", "retry", "timeouts")
	return rawPublisher{
		name:           decodeValue[string](d, fields["name"], path+".name", "a string"),
		resyncInterval: fields["resyncInterval"],
		options:        decodeValue[map[string]string](d, fields["options"], path+".options", "a map of strings"),
		retry:          d.retry(fields["retry"], path+".retry"),
		timeouts:       d.timeouts(fields["timeouts"], path+".timeouts"),
	}
}

// endpoint decodes the endpoint block.
func (d *decoder) endpoint(raw json.RawMessage, path string) rawEndpoint {
	fields := d.object(raw, path, "globalGateway", "backendPort", "globalHostTemplate", "globalHostAnnotation", "routeNamespace", "gatewayBackend")
	backend := d.object(fields["gatewayBackend"], path+".gatewayBackend", "rewriteHostname", "kind", "tls", "endpointSlices")
	tls := d.object(backend["tls"], path+".gatewayBackend.tls", "enabled", "wellKnownCACertificates")
	slices := d.object(backend["endpointSlices"], path+".gatewayBackend.endpointSlices", "enabled", "addressRefreshInterval")
	return rawEndpoint{
		globalGateway:      decodeValue[string](d, fields["globalGateway"], path+".globalGateway", "a string"),
		backendPort:        decodeValue[int64](d, fields["backendPort"], path+".backendPort", "an integer"),
		globalHostTemplate: decodeValue[string](d, fields["globalHostTemplate"], path+".globalHostTemplate", "a string"),
		globalHostAnnot:    decodeValue[string](d, fields["globalHostAnnotation"], path+".globalHostAnnotation", "a string"),
		routeNamespace:     decodeValue[string](d, fields["routeNamespace"], path+".routeNamespace", "a string"),
		rewriteHostname:    decodeValue[bool](d, backend["rewriteHostname"], path+".gatewayBackend.rewriteHostname", "a boolean"),
		kind:               decodeValue[string](d, backend["kind"], path+".gatewayBackend.kind", "a string"),
		tlsEnabled:         decodeValue[bool](d, tls["enabled"], path+".gatewayBackend.tls.enabled", "a boolean"),
		tlsWellKnownCA:     decodeValue[string](d, tls["wellKnownCACertificates"], path+".gatewayBackend.tls.wellKnownCACertificates", "a string"),
		slicesEnabled:      decodeValue[bool](d, slices["enabled"], path+".gatewayBackend.endpointSlices.enabled", "a boolean"),
		slicesRefresh:      slices["addressRefreshInterval"],
	}
}

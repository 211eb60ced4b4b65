package config

import "encoding/json"

// rawPublisher is routing.publisher as decoded.
type rawPublisher struct {
	name           *string
	resyncInterval json.RawMessage
	options        *map[string]string
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
}

func (d *decoder) publisher(raw json.RawMessage, path string) rawPublisher {
	fields := d.object(raw, path, "name", "resyncInterval", "options")
	return rawPublisher{
		name:           decodeValue[string](d, fields["name"], path+".name", "a string"),
		resyncInterval: fields["resyncInterval"],
		options:        decodeValue[map[string]string](d, fields["options"], path+".options", "a map of strings"),
	}
}

// endpoint decodes the endpoint block. BackendTLSPolicy (gatewayBackend.tls) and the
// EndpointSlice fallback (gatewayBackend.endpointSlices) are not built, so their keys are
// unknown fields rather than settings that would be silently ignored.
func (d *decoder) endpoint(raw json.RawMessage, path string) rawEndpoint {
	fields := d.object(raw, path, "globalGateway", "backendPort", "globalHostTemplate", "globalHostAnnotation", "routeNamespace", "gatewayBackend")
	backend := d.object(fields["gatewayBackend"], path+".gatewayBackend", "rewriteHostname", "kind")
	return rawEndpoint{
		globalGateway:      decodeValue[string](d, fields["globalGateway"], path+".globalGateway", "a string"),
		backendPort:        decodeValue[int64](d, fields["backendPort"], path+".backendPort", "an integer"),
		globalHostTemplate: decodeValue[string](d, fields["globalHostTemplate"], path+".globalHostTemplate", "a string"),
		globalHostAnnot:    decodeValue[string](d, fields["globalHostAnnotation"], path+".globalHostAnnotation", "a string"),
		routeNamespace:     decodeValue[string](d, fields["routeNamespace"], path+".routeNamespace", "a string"),
		rewriteHostname:    decodeValue[bool](d, backend["rewriteHostname"], path+".gatewayBackend.rewriteHostname", "a boolean"),
		kind:               decodeValue[string](d, backend["kind"], path+".gatewayBackend.kind", "a string"),
	}
}

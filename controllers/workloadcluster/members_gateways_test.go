package workloadcluster

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// The fixed mapper names the resources the member grants get on (gateways, httproutes):
// a guessed plural ("gatewaies") would be forbidden on every member.
func TestGatewayMapperNamesTheGrantedResources(t *testing.T) {
	for kind, want := range map[string]string{"Gateway": "gateways", "HTTPRoute": "httproutes"} {
		m, err := gatewayMapper.RESTMapping(schema.GroupKind{Group: gatewayv1.GroupName, Kind: kind}, gatewayv1.GroupVersion.Version)
		if err != nil {
			t.Fatalf("RESTMapping(%s): %v", kind, err)
		}
		if m.Resource.Resource != want {
			t.Errorf("%s maps to %q, want %q", kind, m.Resource.Resource, want)
		}
	}
}

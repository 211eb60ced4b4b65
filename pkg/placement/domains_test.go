package placement

import (
	"strings"
	"testing"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

func TestCheckEndpointDomain(t *testing.T) {
	domains := []omev1beta1.EndpointDomain{"worker-a.example.com", "ingress.internal"}
	cases := []struct {
		endpoint string
		domains  []omev1beta1.EndpointDomain
		allowed  bool
	}{
		{"http://llm.worker-a.example.com/qwen/qwen", domains, true},
		{"https://worker-a.example.com:8443/", domains, true},
		{"http://LLM.Worker-A.Example.COM./", domains, true},
		{"http://a.b.ingress.internal/", domains, true},
		// Whole labels only.
		{"http://llm.evilworker-a.example.com/", domains, false},
		{"http://worker-a.example.com.evil.test/", domains, false},
		{"http://example.com/", domains, false},
		{"http://169.254.169.254/", domains, false},
		{"http://[::1]:8080/", domains, false},
		{"http://internal/", domains, false},
		// No list: the guard alone decides.
		{"http://anything.example.net/", nil, true},
		{"http://169.254.169.254/", nil, true},
	}
	for _, tc := range cases {
		err := CheckEndpointDomain(tc.endpoint, tc.domains)
		if tc.allowed != (err == nil) {
			t.Errorf("CheckEndpointDomain(%s, %v) = %v, want allowed %v", tc.endpoint, tc.domains, err, tc.allowed)
		}
	}
	if err := CheckEndpointDomain("http:///v1", domains); err == nil || err.Error() != "the endpoint has no host to match spec.allowedEndpointDomains" {
		t.Errorf("an endpoint without a host: error %v", err)
	}
	err := CheckEndpointDomain("http://llm.evilworker-a.example.com/x", domains)
	want := `host "llm.evilworker-a.example.com" is outside the WorkloadCluster's spec.allowedEndpointDomains [worker-a.example.com ingress.internal]`
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error %v, want it to start %q", err, want)
	}
}

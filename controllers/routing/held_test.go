package routing

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

// The entries of a member not connected yet are copied from the map, which anyone who may
// write TrafficMaps can forge: each goes through the checks a copy's status.url goes
// through, so a forged endpoint is refused as the copy's would be, never probed or routed.
func TestHeldEntriesAreCheckedAsCopiesAre(t *testing.T) {
	domains := []omev1beta1.EndpointDomain{"worker-b.example.com"}
	cases := []struct {
		name, endpoint, refused string
		keepsEndpoint           bool
	}{
		{name: "inside its domains", endpoint: "http://llm.worker-b.example.com/", keepsEndpoint: true},
		{name: "outside its domains", endpoint: "http://metadata.evil.example.net/", keepsEndpoint: true,
			refused: `host "metadata.evil.example.net" is outside the WorkloadCluster's spec.allowedEndpointDomains [worker-b.example.com]; add its domain there if the cluster serves under it`},
		{name: "a credential", endpoint: "http://probe:pw@llm.worker-b.example.com/",
			refused: "the status.url of its copy is refused because it carries user information; fix the copy's status.url"},
		{name: "no host", endpoint: "http://:80/",
			refused: "the status.url of its copy is refused because it has no host; fix the copy's status.url"},
		{name: "another scheme", endpoint: "ftp://llm.worker-b.example.com/",
			refused: "the status.url of its copy is refused because its scheme is not http or https; fix the copy's status.url"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := gathered{pending: []string{"worker-b"}, domains: map[string][]omev1beta1.EndpointDomain{"worker-b": domains}}
			current := &omev1beta1.TrafficMap{ObjectMeta: metav1.ObjectMeta{Namespace: "prod", Name: "chat"},
				Spec: omev1beta1.TrafficMapSpec{Entries: []omev1beta1.TrafficMapEntry{{Cluster: "worker-b", Endpoint: c.endpoint, Weight: 1}}}}
			held := g.held(current)
			if len(held) != 1 {
				t.Fatalf("held %+v, want one home", held)
			}
			h := held[0]
			if h.Refused != c.refused {
				t.Errorf("refused %q, want %q", h.Refused, c.refused)
			}
			wantEndpoint := ""
			if c.keepsEndpoint {
				wantEndpoint = c.endpoint
			}
			if h.Endpoint != wantEndpoint || g.placement.Candidates[0].Endpoint != wantEndpoint {
				t.Errorf("endpoint %q, candidate %q, want %q", h.Endpoint, g.placement.Candidates[0].Endpoint, wantEndpoint)
			}
		})
	}
}
